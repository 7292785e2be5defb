/**
 * A match job's run on the worker: the input file in chunks of the match endpoint's size
 * (1,000 records), each through `runMatch` exactly as POST /corporates/match runs a body, its
 * results appended to the results file in input order, then counted in the job's state.
 *
 * Each chunk, in this order, so a worker killed at any step is continued without a row redone,
 * lost or charged twice:
 *
 *   1. reservation id `match-job:<job>:<attempt>` noted in the state, then reserved: the worst
 *      case (records x MATCH_CREDIT_COST, at most what maxCredits has left); a balance short of
 *      it reserves what it holds (whole matches), none at all stops the job (insufficientCredits)
 *   2. runMatch; applyBudget withholds the matches past the reservation, and the chunk is cut
 *      before the first withheld row (the job stops after it: maxCredits or insufficientCredits)
 *   3. the results lines appended (and flushed) after the state's `resultsBytes`
 *   4. `pending` noted: the reservation, the charge and the progress the chunk brings
 *   5. the reservation settled at the charge (the ledger's settle runs once per reservation)
 *   6. the progress committed, `pending` and the reservation cleared, in one step
 *
 * A restarted worker (./worker.ts: BullMQ hands a killed worker's job to the next one) first
 * looks at the state: `pending` -> settles it again (a no-op when it was) and commits it; a
 * noted reservation without `pending` -> refunds it (that chunk is done again under a new
 * id); then cuts the results file back to `resultsBytes` and goes on from `inputOffset`.
 */
import { open, truncate } from 'node:fs/promises';
import type { Logger } from 'pino';
import type { CreditLedger } from '../limits/credit-ledger.js';
import { applyBudget, type Candidate, type MatchResult, runMatch } from '../names/match.js';
import type { Services } from '../services.js';
import { jobFiles, readLinesFrom } from './files.js';
import { hasEnded, type JobState, type MatchJobStore, type StopReason } from './job-store.js';
import type { InputLine } from './upload.js';

/** Records per chunk: the most one POST /corporates/match takes. */
export const chunkRecords = 1000;
/** Lines per chunk at most, refused rows included (a list of refused rows still moves on). */
const chunkLines = 5000;

export interface ProcessContext {
  /** What runMatch reads: the engine, the index prefix, the logger. */
  services: Pick<Services, 'opensearch' | 'logger' | 'config'>;
  ledger: CreditLedger;
  /** MATCH_CREDIT_COST. */
  price: number;
  store: MatchJobStore;
  /** MATCH_JOBS_DIR. */
  root: string;
  logger: Logger;
  /** Tests: records per chunk (default `chunkRecords`). */
  chunkRecords?: number;
}

/** One answered row, as results.jsonl holds it. */
export interface ResultLine {
  r: number;
  s: 'matched' | 'unmatched' | 'rejected';
  /** The match (a certain one, charged). */
  m?: CandidateSummary;
  /** Candidates found (the match among them). */
  n?: number;
  /** The candidates, best first (lines written since the console reads jobs; older lines have `f`). */
  c?: CandidateSummary[];
  /** The first candidate (older lines only: `c` replaced it). */
  f?: CandidateSummary;
  /** Why the row was refused. */
  e?: string;
}

export interface CandidateSummary {
  corporateNumber: string;
  name: string;
  score: number;
  confidence?: number;
  /** Where and why (lines written since the console reads jobs). */
  prefectureId?: number | null;
  cityName?: string | null;
  matchedOn?: string[];
}

function summary(candidate: Candidate): CandidateSummary {
  const { corporateNumber, name, score, prefectureId, cityName, matchedOn } = candidate;
  // candidates carry a confidence where the matcher gives one
  const confidence = 'confidence' in candidate ? candidate.confidence : undefined;
  return {
    corporateNumber,
    name,
    score,
    ...(typeof confidence === 'number' ? { confidence } : {}),
    prefectureId,
    cityName,
    matchedOn,
  };
}

function resultLine(row: number, result: MatchResult): ResultLine {
  return {
    r: row,
    s: result.match ? 'matched' : 'unmatched',
    ...(result.match ? { m: summary(result.match) } : {}),
    n: result.candidates.length,
    c: result.candidates.map(summary),
  };
}

/** Runs (or continues) the job to its end, a stop or a cancellation; returns its state then. */
export async function processJob(ctx: ProcessContext, id: string): Promise<JobState | undefined> {
  let job = await ctx.store.get(id);
  if (!job || hasEnded(job.status)) return job;
  await ctx.store.transition(id, ['queued', 'running'], 'running');
  job = await recover(ctx, job);
  if (hasEnded(job.status)) return job;
  for (;;) {
    const current = await ctx.store.get(id);
    if (current?.status !== 'running') return current;
    if (current.rowsDone >= current.totalRows) {
      await ctx.store.transition(id, ['running'], 'completed');
      return ctx.store.get(id);
    }
    const stop = await runChunk(ctx, current);
    if (stop) {
      await ctx.store.transition(id, ['running'], 'stopped', { stopReason: stop });
      return ctx.store.get(id);
    }
  }
}

/** What a killed worker left: a chunk to count, a reservation to give back, results to cut. */
async function recover(ctx: ProcessContext, job: JobState): Promise<JobState> {
  const files = jobFiles(ctx.root, job.id);
  if (job.pending) {
    const { reservation, charged, progress, stop } = job.pending;
    await ctx.ledger.settle(reservation, charged, progress.rowsDone - job.rowsDone);
    await ctx.store.commitChunk(job.id, progress);
    ctx.logger.info({ jobId: job.id, rowsDone: progress.rowsDone }, 'match job: a settled chunk counted');
    if (stop) await ctx.store.transition(job.id, ['running'], 'stopped', { stopReason: stop });
  } else if (job.reservation) {
    await ctx.ledger.refund(job.reservation);
    await ctx.store.clear(job.id, 'reservation');
    ctx.logger.info({ jobId: job.id, rowsDone: job.rowsDone }, 'match job: an unfinished chunk given back');
  }
  const current = (await ctx.store.get(job.id)) ?? job;
  // a killed chunk's lines past the counted ones are dropped (the file exists once a chunk ran)
  const handle = await open(files.results, 'a');
  await handle.close();
  await truncate(files.results, current.resultsBytes);
  return current;
}

interface Reserved {
  id: string;
  credits: number;
  /** Why the reservation is short of the worst case (the chunk may be cut). */
  short?: StopReason;
}

/**
 * Reserves for `records` records: the worst case, at most what maxCredits leaves; when the
 * balance is short, the whole matches it pays for. undefined: not one match can be paid for.
 */
async function reserve(ctx: ProcessContext, job: JobState, records: number): Promise<Reserved | StopReason> {
  const left =
    job.request.maxCredits === undefined
      ? Number.POSITIVE_INFINITY
      : job.request.maxCredits - job.creditsCharged;
  if (left < ctx.price) return 'maxCredits';
  const worst = records * ctx.price;
  const wanted = Math.min(worst, Math.floor(left / ctx.price) * ctx.price);
  let attempts = job.attempts;
  const attempt = async (credits: number) => {
    attempts += 1;
    const reservation = `match-job:${job.id}:${attempts}`;
    // noted before the debit: a worker killed after it refunds it on restart
    await ctx.store.set(job.id, { reservation, attempts: String(attempts) });
    const tag = {
      operation: 'POST /corporates/match-jobs',
      matchJobId: job.id,
      ...(job.keyId ? { keyId: job.keyId } : {}),
      ...(job.requestId ? { requestId: job.requestId } : {}),
    };
    return {
      reservation,
      result: await ctx.ledger.reserve(job.userId, credits, reservation, undefined, tag),
    };
  };
  const first = await attempt(wanted);
  if (first.result.ok)
    return { id: first.reservation, credits: wanted, ...(wanted < worst ? { short: 'maxCredits' } : {}) };
  const affordable = Math.floor(first.result.balance / ctx.price) * ctx.price;
  if (affordable < ctx.price) {
    await ctx.store.clear(job.id, 'reservation');
    return 'insufficientCredits';
  }
  const second = await attempt(affordable);
  if (!second.result.ok) {
    await ctx.store.clear(job.id, 'reservation');
    return 'insufficientCredits';
  }
  return { id: second.reservation, credits: affordable, short: 'insufficientCredits' };
}

/** One chunk, from reservation to commit; the reason the job stops after it, if it does. */
async function runChunk(ctx: ProcessContext, job: JobState): Promise<StopReason | undefined> {
  const files = jobFiles(ctx.root, job.id);
  const perChunk = ctx.chunkRecords ?? chunkRecords;
  let records = 0;
  const lines = await readLinesFrom(files.input, job.inputOffset, (line, taken) => {
    if (!line.text.includes('"e":')) records += 1;
    return records < perChunk && taken < chunkLines;
  });
  const rows = lines.map((line) => JSON.parse(line.text) as InputLine);
  const valid = rows.flatMap((row) => (row.m !== undefined && row.e === undefined ? [row.m] : []));
  let reserved: Reserved | undefined;
  if (ctx.price > 0 && valid.length > 0) {
    const outcome = await reserve(ctx, job, valid.length);
    if (typeof outcome === 'string') return outcome;
    reserved = outcome;
  }
  let results: MatchResult[];
  try {
    results =
      valid.length === 0
        ? []
        : await runMatch(ctx.services, {
            records: valid,
            ...(job.request.candidates !== undefined ? { candidates: job.request.candidates } : {}),
            ...(job.request.minConfidence !== undefined ? { minConfidence: job.request.minConfidence } : {}),
          });
  } catch (error) {
    // the engine failed: the chunk is given back and tried again (the queue's retries)
    if (reserved) {
      await ctx.ledger.refund(reserved.id);
      await ctx.store.clear(job.id, 'reservation');
    }
    throw error;
  }
  const charged = applyBudget(results, ctx.price, reserved ? reserved.credits : undefined);

  // the rows answered: up to the first match withheld for want of credits
  const out: ResultLine[] = [];
  let bytes = 0;
  let matched = 0;
  let unmatched = 0;
  let stop: StopReason | undefined;
  let next = 0;
  for (const [index, row] of rows.entries()) {
    let line: ResultLine;
    if (row.m === undefined || row.e !== undefined) {
      line = { r: row.r, s: 'rejected', e: row.e ?? 'row: not a match record' };
    } else {
      const result = results[next] as MatchResult;
      next += 1;
      if (result.overMaxCredits) {
        stop = reserved?.short ?? 'maxCredits';
        break;
      }
      line = resultLine(row.r, result);
      if (line.s === 'matched') matched += 1;
      else unmatched += 1;
    }
    out.push(line);
    bytes += (lines[index] as { bytes: number }).bytes;
  }
  const text = out.map((line) => `${JSON.stringify(line)}\n`).join('');
  const handle = await open(files.results, 'a');
  try {
    await handle.write(text);
    await handle.datasync();
  } finally {
    await handle.close();
  }
  const progress = {
    rowsDone: job.rowsDone + out.length,
    matched: job.matched + matched,
    unmatched: job.unmatched + unmatched,
    creditsCharged: job.creditsCharged + charged,
    inputOffset: job.inputOffset + bytes,
    resultsBytes: job.resultsBytes + Buffer.byteLength(text),
  };
  if (reserved) {
    await ctx.store.set(job.id, {
      pending: JSON.stringify({ reservation: reserved.id, charged, progress, ...(stop ? { stop } : {}) }),
    });
    await ctx.ledger.settle(reserved.id, charged, out.length);
  }
  await ctx.store.commitChunk(job.id, progress);
  ctx.logger.info(
    { jobId: job.id, rowsDone: progress.rowsDone, totalRows: job.totalRows, charged },
    'match job: chunk done',
  );
  return stop;
}
