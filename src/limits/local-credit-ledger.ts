/**
 * SINGLE-PROCESS ONLY: the credit ledger for `npm start` without REDIS_URL. Balances live in
 * this process, and in `file` (JSON, rewritten atomically on every change and re-read before
 * every operation) so the keys CLI, a separate process, grants credits the server then sees.
 * Open reservations are in the file too, each with the time it counts as orphaned, so a
 * reservation left by a killed server is refunded by the next one's sweep (or the CLI's view
 * shows it open). Two API processes on one file are NOT safe; production runs the Redis ledger.
 */
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

interface Reservation {
  userId: string;
  cost: number;
  /** Epoch ms from which the sweep refunds it. */
  dueAt: number;
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
}

export class LocalCreditLedger implements CreditLedger {
  readonly mode = 'single-process' as const;
  private balances = new Map<string, number>();
  /** Open reservations; commit and refund delete theirs, so a second refund finds nothing. */
  private reservations = new Map<string, Reservation>();
  private autoRefunds = new Map<string, AutoRefund[]>();
  private autoRefundTotals = new Map<string, { reservations: number; credits: number }>();

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
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      this.balances = new Map();
      this.reservations = new Map();
      this.autoRefunds = new Map();
      this.autoRefundTotals = new Map();
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
    };
    writeFileSync(temp, `${JSON.stringify(content, null, 2)}\n`);
    renameSync(temp, this.file);
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
    this.save();
    return after;
  }

  async reserve(userId: string, cost: number, requestId: string): Promise<ReserveResult> {
    this.load();
    const balance = this.balances.get(userId) ?? 0;
    if (this.reservations.has(requestId)) return { ok: true, balance };
    if (balance < cost) return { ok: false, balance };
    this.reservations.set(requestId, { userId, cost, dueAt: Date.now() + this.orphanAfterMs });
    const after = this.add(userId, -cost);
    this.save();
    return { ok: true, balance: after };
  }

  async commit(requestId: string): Promise<void> {
    this.load();
    if (this.reservations.delete(requestId)) this.save();
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

  async settle(requestId: string, finalCost: number): Promise<number | null> {
    this.load();
    const reservation = this.reservations.get(requestId);
    if (!reservation) return null;
    this.reservations.delete(requestId);
    const after = this.add(reservation.userId, reservation.cost - Math.min(finalCost, reservation.cost));
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

  /** This process only: the steps one by one, no store round trips to save. */
  admit(request: AdmitRequest): Promise<Admission> {
    return admitInSteps(this, request);
  }
}
