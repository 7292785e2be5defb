/**
 * A match job's state in Redis (the rows themselves are files: ./files.ts). One hash per job,
 * `<prefix>match-job:<id>`, and per user a sorted set of their jobs by creation time,
 * `<prefix>match-jobs:user:<userId>`; jobs that ended wait in `<prefix>match-jobs:ended`
 * (scored by when they ended) for the retention sweep (./retention.ts).
 *
 * The worker's progress is written in one script per chunk (`commitChunk`): the rows done,
 * where the next chunk starts in the input file, how long the results file is, the counts
 * and the credits charged move together, so a worker killed at any point leaves a state a
 * restarted worker continues from (./process.ts).
 */
import type { Redis } from 'ioredis';

export type JobStatus = 'queued' | 'running' | 'completed' | 'stopped' | 'cancelled' | 'failed';
export type StopReason = 'insufficientCredits' | 'maxCredits';
export type UploadFormat = 'csv' | 'jsonl';
export type UploadEncoding = 'utf8' | 'sjis';

/** What a job is asked to do, fixed at creation. */
export interface JobRequest {
  format: UploadFormat;
  /** CSV only: how the file was decoded. */
  encoding?: UploadEncoding;
  /** CSV: the header as uploaded; JSONL: the match record's fields. */
  columns: string[];
  candidates?: number;
  maxCredits?: number;
  /** Forwarded to the matcher where it takes one (src/names/match.ts). */
  minConfidence?: number;
}

export interface JobState {
  id: string;
  userId: string;
  /** The public id of the key that created it, and that request's X-Request-Id: its charges name them (the ledger). */
  keyId?: string;
  requestId?: string;
  status: JobStatus;
  request: JobRequest;
  createdAt: string;
  updatedAt: string;
  endedAt?: string;
  stopReason?: StopReason;
  /** Rows of the upload (header not counted), rejected ones included. */
  totalRows: number;
  /** Rows refused at upload (their reason is in the results). */
  rejectedRows: number;
  /** Rows answered so far, in input order (rejected ones included). */
  rowsDone: number;
  matched: number;
  unmatched: number;
  creditsCharged: number;
  /** Byte offset in the input file where the next chunk starts. */
  inputOffset: number;
  /** Bytes of the results file that belong to finished chunks (the rest is a killed chunk's). */
  resultsBytes: number;
  /** The open reservation of the chunk in hand, if any (refunded when a restarted worker finds it). */
  reservation?: string;
  /** A chunk whose results are written and whose charge is being settled (./process.ts). */
  pending?: PendingChunk;
  /** Chunk attempts so far: each attempt reserves under its own id. */
  attempts: number;
}

export interface ChunkProgress {
  rowsDone: number;
  matched: number;
  unmatched: number;
  creditsCharged: number;
  inputOffset: number;
  resultsBytes: number;
}

export interface PendingChunk {
  reservation: string;
  charged: number;
  /** The job's progress once this chunk is counted (absolute values). */
  progress: ChunkProgress;
  /** The job stops after this chunk (credits ran out, maxCredits spent). */
  stop?: StopReason;
}

const ended: readonly JobStatus[] = ['completed', 'stopped', 'cancelled', 'failed'];

export function hasEnded(status: JobStatus): boolean {
  return ended.includes(status);
}

// KEYS: job; ARGV: allowed statuses (comma separated), new status, now, pairs of fields
// -> 1 changed | 0 not in an allowed status (or gone)
const transitionScript = `
local status = redis.call('HGET', KEYS[1], 'status')
if not status then return 0 end
local allowed = false
for s in string.gmatch(ARGV[1], '[^,]+') do if s == status then allowed = true end end
if not allowed then return 0 end
redis.call('HSET', KEYS[1], 'status', ARGV[2], 'updatedAt', ARGV[3])
for i = 4, #ARGV, 2 do
  if ARGV[i + 1] == '' then redis.call('HDEL', KEYS[1], ARGV[i]) else redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1]) end
end
return 1
`;

export class MatchJobStore {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {}

  /** Resolves once the store's Redis connection is up (it queues no command offline). */
  ready(): Promise<void> {
    if (this.redis.status === 'ready') return Promise.resolve();
    return new Promise((resolve) => this.redis.once('ready', () => resolve()));
  }

  private jobKey(id: string): string {
    return `${this.prefix}match-job:${id}`;
  }

  private userKey(userId: string): string {
    return `${this.prefix}match-jobs:user:${userId}`;
  }

  private endedKey(): string {
    return `${this.prefix}match-jobs:ended`;
  }

  async create(job: JobState): Promise<void> {
    await this.redis
      .multi()
      .hset(this.jobKey(job.id), toHash(job))
      .zadd(this.userKey(job.userId), Date.parse(job.createdAt), job.id)
      .exec();
  }

  async get(id: string): Promise<JobState | undefined> {
    const hash = await this.redis.hgetall(this.jobKey(id));
    return hash.status ? fromHash(id, hash) : undefined;
  }

  /** The user's jobs, newest first. */
  async list(userId: string, limit: number): Promise<JobState[]> {
    const ids = await this.redis.zrevrange(this.userKey(userId), 0, limit - 1);
    const jobs = await Promise.all(ids.map((id) => this.get(id)));
    return jobs.filter((job): job is JobState => job !== undefined && job.userId === userId);
  }

  /** Moves the job to `to` when it is in one of `from`; false otherwise. Ending records it for the sweep. */
  async transition(
    id: string,
    from: readonly JobStatus[],
    to: JobStatus,
    fields: Record<string, string> = {},
  ): Promise<boolean> {
    const now = new Date().toISOString();
    const extra = hasEnded(to) ? { ...fields, endedAt: now } : fields;
    const changed = (await this.redis.eval(
      transitionScript,
      1,
      this.jobKey(id),
      from.join(','),
      to,
      now,
      ...Object.entries(extra).flat(),
    )) as number;
    if (changed === 1 && hasEnded(to)) await this.redis.zadd(this.endedKey(), Date.now(), id);
    return changed === 1;
  }

  /** Fields of a running job (the chunk's reservation, its pending settlement, attempts). */
  async set(id: string, fields: Record<string, string>): Promise<void> {
    await this.redis.hset(this.jobKey(id), { ...fields, updatedAt: new Date().toISOString() });
  }

  async clear(id: string, ...fields: string[]): Promise<void> {
    await this.redis.hdel(this.jobKey(id), ...fields);
  }

  /** A chunk counted: its progress in, its pending settlement and reservation out, in one step. */
  async commitChunk(id: string, progress: ChunkProgress): Promise<void> {
    await this.redis
      .multi()
      .hset(this.jobKey(id), {
        ...Object.fromEntries(Object.entries(progress).map(([key, value]) => [key, String(value)])),
        updatedAt: new Date().toISOString(),
      })
      .hdel(this.jobKey(id), 'pending', 'reservation')
      .exec();
  }

  /** Jobs that ended before `before` (epoch ms), oldest first. */
  async endedBefore(before: number, limit = 100): Promise<string[]> {
    return this.redis.zrangebyscore(this.endedKey(), '-inf', before, 'LIMIT', 0, limit);
  }

  async remove(id: string, userId: string | undefined): Promise<void> {
    const multi = this.redis.multi().del(this.jobKey(id)).zrem(this.endedKey(), id);
    if (userId) multi.zrem(this.userKey(userId), id);
    await multi.exec();
  }
}

function toHash(job: JobState): Record<string, string> {
  const hash: Record<string, string> = {
    userId: job.userId,
    status: job.status,
    request: JSON.stringify(job.request),
    createdAt: job.createdAt,
    updatedAt: job.updatedAt,
    totalRows: String(job.totalRows),
    rejectedRows: String(job.rejectedRows),
    rowsDone: String(job.rowsDone),
    matched: String(job.matched),
    unmatched: String(job.unmatched),
    creditsCharged: String(job.creditsCharged),
    inputOffset: String(job.inputOffset),
    resultsBytes: String(job.resultsBytes),
    attempts: String(job.attempts),
    ...(job.keyId ? { keyId: job.keyId } : {}),
    ...(job.requestId ? { requestId: job.requestId } : {}),
  };
  return hash;
}

function fromHash(id: string, hash: Record<string, string>): JobState {
  const number = (name: string) => Number(hash[name] ?? 0);
  return {
    id,
    userId: hash.userId ?? '',
    ...(hash.keyId ? { keyId: hash.keyId } : {}),
    ...(hash.requestId ? { requestId: hash.requestId } : {}),
    status: hash.status as JobStatus,
    request: JSON.parse(hash.request ?? '{}') as JobRequest,
    createdAt: hash.createdAt ?? '',
    updatedAt: hash.updatedAt ?? '',
    ...(hash.endedAt ? { endedAt: hash.endedAt } : {}),
    ...(hash.stopReason ? { stopReason: hash.stopReason as StopReason } : {}),
    totalRows: number('totalRows'),
    rejectedRows: number('rejectedRows'),
    rowsDone: number('rowsDone'),
    matched: number('matched'),
    unmatched: number('unmatched'),
    creditsCharged: number('creditsCharged'),
    inputOffset: number('inputOffset'),
    resultsBytes: number('resultsBytes'),
    ...(hash.reservation ? { reservation: hash.reservation } : {}),
    ...(hash.pending ? { pending: JSON.parse(hash.pending) as PendingChunk } : {}),
    attempts: number('attempts'),
  };
}

/** What GET .../match-jobs/{id} answers (no internal offsets or reservations). */
export function publicView(job: JobState) {
  return {
    id: job.id,
    status: job.status,
    ...(job.stopReason ? { stopReason: job.stopReason } : {}),
    format: job.request.format,
    ...(job.request.encoding ? { encoding: job.request.encoding } : {}),
    columns: job.request.columns,
    ...(job.request.candidates !== undefined ? { candidates: job.request.candidates } : {}),
    ...(job.request.maxCredits !== undefined ? { maxCredits: job.request.maxCredits } : {}),
    ...(job.request.minConfidence !== undefined ? { minConfidence: job.request.minConfidence } : {}),
    rows: {
      total: job.totalRows,
      done: job.rowsDone,
      rejected: job.rejectedRows,
      matched: job.matched,
      unmatched: job.unmatched,
    },
    creditsCharged: job.creditsCharged,
    createdAt: job.createdAt,
    updatedAt: job.updatedAt,
    ...(job.endedAt ? { endedAt: job.endedAt } : {}),
  };
}
