/**
 * SINGLE-PROCESS ONLY: the credit ledger for `npm start` without REDIS_URL. Balances live in
 * this process, and in `file` (JSON, rewritten atomically on every change and re-read before
 * every operation) so the keys CLI, a separate process, grants credits the server then sees.
 * Two API processes on one file are NOT safe; production runs the Redis ledger.
 */
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { CreditLedger, ReserveResult } from './credit-ledger.js';

interface Reservation {
  userId: string;
  cost: number;
}

export class LocalCreditLedger implements CreditLedger {
  readonly mode = 'single-process' as const;
  private balances = new Map<string, number>();
  /** Open reservations; commit and refund delete theirs, so a second refund finds nothing. */
  private readonly reservations = new Map<string, Reservation>();

  constructor(private readonly file?: string) {}

  // Every method body runs synchronously, so within this process each one is atomic.
  private load(): void {
    if (!this.file) return;
    try {
      const parsed = JSON.parse(readFileSync(this.file, 'utf8')) as { balances?: Record<string, number> };
      this.balances = new Map(Object.entries(parsed.balances ?? {}));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      this.balances = new Map();
    }
  }

  private save(): void {
    if (!this.file) return;
    mkdirSync(path.dirname(this.file), { recursive: true });
    const temp = `${this.file}.${process.pid}.tmp`;
    writeFileSync(temp, `${JSON.stringify({ balances: Object.fromEntries(this.balances) }, null, 2)}\n`);
    renameSync(temp, this.file);
  }

  private add(userId: string, amount: number): number {
    const after = (this.balances.get(userId) ?? 0) + amount;
    this.balances.set(userId, after);
    this.save();
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
    return this.add(userId, amount);
  }

  async reserve(userId: string, cost: number, requestId: string): Promise<ReserveResult> {
    this.load();
    const balance = this.balances.get(userId) ?? 0;
    if (this.reservations.has(requestId)) return { ok: true, balance };
    if (balance < cost) return { ok: false, balance };
    this.reservations.set(requestId, { userId, cost });
    return { ok: true, balance: this.add(userId, -cost) };
  }

  async commit(requestId: string): Promise<void> {
    this.reservations.delete(requestId);
  }

  async refund(requestId: string): Promise<number | null> {
    const reservation = this.reservations.get(requestId);
    if (!reservation) return null;
    this.reservations.delete(requestId);
    this.load();
    return this.add(reservation.userId, reservation.cost);
  }
}
