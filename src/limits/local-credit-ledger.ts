/**
 * SINGLE-PROCESS ONLY: the credit ledger for `npm start` without REDIS_URL. Balances live in
 * this process, and in `file` (JSON, rewritten atomically on every change and re-read before
 * every operation) so the keys CLI, a separate process, grants credits the server then sees.
 * Open reservations are in the file too, each with the time it counts as orphaned, so a
 * reservation left by a killed server is refunded by the next one's sweep (or the CLI's view
 * shows it open). Two API processes on one file are NOT safe; production runs the Redis ledger.
 */

import { randomUUID } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { admitInSteps } from './admission.js';
import type {
  AccountReport,
  Admission,
  AdmitRequest,
  CreditLedger,
  ReserveResult,
  SweepResult,
} from './credit-ledger.js';
import type { ChargeTag, LedgerEntry, TailEntry } from './ledger-entry.js';

interface Reservation {
  userId: string;
  cost: number;
  /** Epoch ms from which the sweep refunds it. */
  dueAt: number;
  tag?: ChargeTag;
}

interface AutoRefund {
  at: string;
  reservationId: string;
  cost: number;
}

interface LedgerFile {
  balances?: Record<string, number>;
  reservations?: Record<string, Reservation>;
  autoRefunds?: Record<string, AutoRefund[]>;
  autoRefundTotals?: Record<string, { reservations: number; credits: number }>;
  /** Ledger entries not yet filed in the engine, oldest first. */
  tail?: TailEntry[];
  /** Users whose opening entry was written. */
  opened?: string[];
}

export class LocalCreditLedger implements CreditLedger {
  readonly mode = 'single-process' as const;
  private balances = new Map<string, number>();
  /** Open reservations; commit and refund delete theirs, so a second refund finds nothing. */
  private reservations = new Map<string, Reservation>();
  private autoRefunds = new Map<string, AutoRefund[]>();
  private autoRefundTotals = new Map<string, { reservations: number; credits: number }>();
  private ledgerTail: TailEntry[] = [];
  private opened = new Set<string>();

  constructor(
    private readonly file?: string,
    private readonly orphanAfterMs = 60_000,
  ) {}

  // Every method body runs synchronously, so within this process each one is atomic.
  private load(): void {
    if (!this.file) return;
    try {
      const parsed = JSON.parse(readFileSync(this.file, 'utf8')) as LedgerFile;
      this.balances = new Map(Object.entries(parsed.balances ?? {}));
      this.reservations = new Map(Object.entries(parsed.reservations ?? {}));
      this.autoRefunds = new Map(Object.entries(parsed.autoRefunds ?? {}));
      this.autoRefundTotals = new Map(Object.entries(parsed.autoRefundTotals ?? {}));
      this.ledgerTail = parsed.tail ?? [];
      this.opened = new Set(parsed.opened ?? []);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      this.balances = new Map();
      this.reservations = new Map();
      this.autoRefunds = new Map();
      this.autoRefundTotals = new Map();
      this.ledgerTail = [];
      this.opened = new Set();
    }
  }

  private save(): void {
    if (!this.file) return;
    mkdirSync(path.dirname(this.file), { recursive: true });
    const temp = `${this.file}.${process.pid}.tmp`;
    const content: LedgerFile = {
      balances: Object.fromEntries(this.balances),
      reservations: Object.fromEntries(this.reservations),
      autoRefunds: Object.fromEntries(this.autoRefunds),
      autoRefundTotals: Object.fromEntries(this.autoRefundTotals),
      tail: this.ledgerTail,
      opened: [...this.opened],
    };
    writeFileSync(temp, `${JSON.stringify(content, null, 2)}\n`);
    renameSync(temp, this.file);
  }

  /** Appends an entry to the tail (saved with the balance it moved). */
  private write(entry: Omit<LedgerEntry, 'at'>): void {
    const last = Number(this.ledgerTail.at(-1)?.tailId ?? 0);
    this.ledgerTail.push({
      tailId: String(Math.max(last + 1, Date.now() * 1000)),
      entry: { ...entry, at: new Date().toISOString() },
    });
  }

  private writeCharge(
    id: string,
    reservation: Reservation,
    credits: number,
    settled?: { rows: number | undefined },
  ): void {
    this.write({
      id: `charge:${id}`,
      kind: 'charge',
      userId: reservation.userId,
      credits: -credits,
      ...reservation.tag,
      ...(settled?.rows === undefined ? {} : { rows: settled.rows }),
      ...(settled ? { reserved: reservation.cost } : {}),
    });
  }

  private openCredits(userId: string): number {
    let total = 0;
    for (const reservation of this.reservations.values())
      if (reservation.userId === userId) total += reservation.cost;
    return total;
  }

  private add(userId: string, amount: number): number {
    const after = (this.balances.get(userId) ?? 0) + amount;
    this.balances.set(userId, after);
    return after;
  }

  async balance(userId: string): Promise<number> {
    this.load();
    return this.balances.get(userId) ?? 0;
  }

  async grant(userId: string, amount: number): Promise<number> {
    if (!Number.isInteger(amount)) throw new RangeError('amount must be a whole number');
    this.load();
    const balance = this.balances.get(userId) ?? 0;
    if (balance + amount < 0)
      throw new RangeError(`cannot take ${-amount} credits: the balance is ${balance}`);
    const after = this.add(userId, amount);
    this.write({ id: `grant:${randomUUID()}`, kind: 'grant', userId, credits: amount });
    this.save();
    return after;
  }

  async reserve(
    userId: string,
    cost: number,
    requestId: string,
    _giveUpAt?: number,
    tag?: ChargeTag,
  ): Promise<ReserveResult> {
    this.load();
    const balance = this.balances.get(userId) ?? 0;
    if (this.reservations.has(requestId)) return { ok: true, balance };
    if (balance < cost) return { ok: false, balance };
    this.reservations.set(requestId, {
      userId,
      cost,
      dueAt: Date.now() + this.orphanAfterMs,
      ...(tag ? { tag } : {}),
    });
    const after = this.add(userId, -cost);
    this.save();
    return { ok: true, balance: after };
  }

  async commit(requestId: string): Promise<void> {
    this.load();
    const reservation = this.reservations.get(requestId);
    if (!reservation) return;
    this.reservations.delete(requestId);
    this.writeCharge(requestId, reservation, reservation.cost);
    this.save();
  }

  async refund(requestId: string): Promise<number | null> {
    this.load();
    const reservation = this.reservations.get(requestId);
    if (!reservation) return null;
    this.reservations.delete(requestId);
    const after = this.add(reservation.userId, reservation.cost);
    this.save();
    return after;
  }

  async sweepOrphans(): Promise<SweepResult> {
    this.load();
    const now = Date.now();
    const result = { reservations: 0, credits: 0 };
    for (const [id, reservation] of this.reservations) {
      if (reservation.dueAt > now) continue;
      this.reservations.delete(id);
      this.add(reservation.userId, reservation.cost);
      const list = this.autoRefunds.get(reservation.userId) ?? [];
      list.unshift({ at: new Date(now).toISOString(), reservationId: id, cost: reservation.cost });
      this.autoRefunds.set(reservation.userId, list.slice(0, 100));
      const totals = this.autoRefundTotals.get(reservation.userId) ?? { reservations: 0, credits: 0 };
      this.autoRefundTotals.set(reservation.userId, {
        reservations: totals.reservations + 1,
        credits: totals.credits + reservation.cost,
      });
      result.reservations += 1;
      result.credits += reservation.cost;
    }
    if (result.reservations > 0) this.save();
    return result;
  }

  async account(userId: string): Promise<AccountReport> {
    this.load();
    const open = [...this.reservations.values()].filter((r) => r.userId === userId);
    const totals = this.autoRefundTotals.get(userId) ?? { reservations: 0, credits: 0 };
    return {
      balance: this.balances.get(userId) ?? 0,
      open: { reservations: open.length, credits: open.reduce((sum, r) => sum + r.cost, 0) },
      autoRefunded: { ...totals, recent: (this.autoRefunds.get(userId) ?? []).slice(0, 10) },
    };
  }

  async settle(requestId: string, finalCost: number, rows?: number): Promise<number | null> {
    this.load();
    const reservation = this.reservations.get(requestId);
    if (!reservation) return null;
    this.reservations.delete(requestId);
    const final = Math.min(finalCost, reservation.cost);
    const after = this.add(reservation.userId, reservation.cost - final);
    this.writeCharge(requestId, reservation, final, { rows });
    this.save();
    return after;
  }

  async keepOpen(requestId: string): Promise<boolean> {
    this.load();
    const reservation = this.reservations.get(requestId);
    if (!reservation) return false;
    reservation.dueAt = Date.now() + this.orphanAfterMs;
    this.save();
    return true;
  }

  async tail(limit: number): Promise<TailEntry[]> {
    this.load();
    return this.ledgerTail.slice(0, limit);
  }

  async dropTail(tailIds: string[]): Promise<void> {
    this.load();
    const drop = new Set(tailIds);
    this.ledgerTail = this.ledgerTail.filter((row) => !drop.has(row.tailId));
    this.save();
  }

  async tailLength(): Promise<number> {
    this.load();
    return this.ledgerTail.length;
  }

  async users(): Promise<string[]> {
    this.load();
    return [...this.balances.keys()].sort();
  }

  async restoreBalance(
    userId: string,
    ledgerSum: number,
  ): Promise<{ before: number; after: number } | 'tail'> {
    this.load();
    if (this.ledgerTail.length > 0) return 'tail';
    const before = this.balances.get(userId) ?? 0;
    const after = ledgerSum - this.openCredits(userId);
    this.balances.set(userId, after);
    this.save();
    return { before, after };
  }

  async open(userId: string, ledgerSum: number): Promise<number | null | 'tail'> {
    this.load();
    if (this.ledgerTail.length > 0) return 'tail';
    if (this.opened.has(userId)) return null;
    this.opened.add(userId);
    const credits = (this.balances.get(userId) ?? 0) + this.openCredits(userId) - ledgerSum;
    if (credits !== 0) this.write({ id: `opening:${userId}`, kind: 'opening', userId, credits });
    this.save();
    return credits;
  }

  /** This process only: the steps one by one, no store round trips to save. */
  admit(request: AdmitRequest): Promise<Admission> {
    return admitInSteps(this, request);
  }
}
