/**
 * The handlers of /corporates/match-jobs (their chains: src/http/route-table.ts): a list of
 * any size matched by the worker (src/match-jobs; docs/api.md, "Match jobs").
 *
 *   POST   /corporates/match-jobs              upload (CSV or JSONL, streamed to MATCH_JOBS_DIR) -> 202 the job
 *   GET    /corporates/match-jobs              the caller's jobs, newest first
 *   GET    /corporates/match-jobs/{id}         the job: status, rows done / total, matched, credits
 *   DELETE /corporates/match-jobs/{id}         cancels it (rows answered so far stay readable)
 *   GET    /corporates/match-jobs/{id}/results CSV or JSONL, input order, input columns kept
 *   POST   /corporates/match-jobs/{id}/resume  a stopped job (credits ran out) goes on
 *
 * A job is its creator's: another user's id is a 404, as an unknown one. The upload is not
 * bound by the request deadline (a million rows take longer); the rest is.
 */
import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Request, RequestHandler, Response } from 'express';
import { errors, type FieldError } from '../../errors/catalogue.js';
import { parseIdempotencyKey, requestFingerprint } from '../../limits/charges.js';
import { isJobId, jobFiles, makeJobDir, removeJobDir } from '../../match-jobs/files.js';
import {
  hasEnded,
  type JobState,
  publicView,
  type UploadEncoding,
  type UploadFormat,
} from '../../match-jobs/job-store.js';
import { enqueueMatchJob } from '../../match-jobs/queue.js';
import { formatResults, type ResultsFormat } from '../../match-jobs/results.js';
import type { MatchJobs } from '../../match-jobs/service.js';
import { storeUpload } from '../../match-jobs/upload.js';
import type { Services } from '../../services.js';
import { deadlineOf, stillAnswering } from '../deadline.js';
import { refuseBody } from '../empty-body.js';
import { currentUser, locals } from '../locals.js';

function jobsOf(services: Services): MatchJobs {
  // without Redis there is neither a queue nor a worker
  if (!services.matchJobs) throw errors.matchJobsUnavailable();
  return services.matchJobs;
}

const csvTypes = ['text/csv', 'application/csv'];
const jsonlTypes = [
  'application/jsonl',
  'application/x-ndjson',
  'application/x-jsonlines',
  'application/jsonlines',
];

function query(req: Request, name: string): string | undefined {
  const value = req.query[name];
  return typeof value === 'string' ? value : undefined;
}

function integerParam(req: Request, name: string, min: number, max: number, problems: FieldError[]) {
  const text = query(req, name);
  if (text === undefined) return undefined;
  const value = Number(text);
  if (!/^\d+$/.test(text) || value < min || value > max) {
    problems.push({ field: name, reason: `must be an integer from ${min} to ${max}` });
    return undefined;
  }
  return value;
}

interface CreateOptions {
  format: UploadFormat;
  encoding: UploadEncoding | 'auto';
  candidates?: number;
  maxCredits?: number;
  minConfidence?: number;
}

/** The upload's format and encoding (parameters first, else the Content-Type) and the job's options. */
function createOptions(req: Request): CreateOptions {
  const problems: FieldError[] = [];
  const known = new Set(['format', 'encoding', 'candidates', 'maxCredits', 'minConfidence']);
  for (const name of Object.keys(req.query))
    if (!known.has(name)) problems.push({ field: name, reason: 'is not a parameter of this request' });
  const [mediaType = '', ...parameters] = (req.get('Content-Type') ?? '')
    .split(';')
    .map((part) => part.trim().toLowerCase());
  const charset = parameters
    .find((part) => part.startsWith('charset='))
    ?.slice('charset='.length)
    .replaceAll('"', '');
  let format: UploadFormat | undefined;
  const formatParam = query(req, 'format');
  if (formatParam !== undefined) {
    if (formatParam === 'csv' || formatParam === 'jsonl') format = formatParam;
    else problems.push({ field: 'format', reason: 'must be csv or jsonl' });
  } else if (csvTypes.includes(mediaType)) format = 'csv';
  else if (jsonlTypes.includes(mediaType)) format = 'jsonl';
  else
    problems.push({
      field: 'Content-Type',
      reason: 'must be text/csv or application/jsonl (application/x-ndjson), or give format=csv|jsonl',
    });
  let encoding: UploadEncoding | 'auto' = 'auto';
  const encodingParam = query(req, 'encoding') ?? charset;
  if (encodingParam !== undefined) {
    const folded = encodingParam.replace(/[-_]/g, '');
    if (folded === 'utf8') encoding = 'utf8';
    else if (['sjis', 'shiftjis', 'cp932', 'windows31j'].includes(folded)) encoding = 'sjis';
    else if (folded === 'auto') encoding = 'auto';
    else problems.push({ field: 'encoding', reason: 'must be auto, utf-8 or shift_jis' });
  }
  if (format === 'jsonl' && encoding === 'sjis')
    problems.push({ field: 'encoding', reason: 'JSONL is read as UTF-8 only' });
  const candidates = integerParam(req, 'candidates', 1, 10, problems);
  const maxCredits = integerParam(req, 'maxCredits', 0, Number.MAX_SAFE_INTEGER, problems);
  let minConfidence: number | undefined;
  const confidence = query(req, 'minConfidence');
  if (confidence !== undefined) {
    minConfidence = Number(confidence);
    if (!/^(0(\.\d+)?|1(\.0+)?)$/.test(confidence))
      problems.push({ field: 'minConfidence', reason: 'must be a number from 0 to 1' });
  }
  const encodingHeader = req.get('Content-Encoding');
  if (encodingHeader !== undefined && encodingHeader.toLowerCase() !== 'identity')
    throw errors.unsupportedContentEncoding(encodingHeader);
  if (problems.length > 0 || !format) throw errors.validation(problems);
  return {
    format,
    encoding: format === 'jsonl' ? 'utf8' : encoding,
    ...(candidates !== undefined ? { candidates } : {}),
    ...(maxCredits !== undefined ? { maxCredits } : {}),
    ...(minConfidence !== undefined ? { minConfidence } : {}),
  };
}

/** The job of this id if it is the caller's; a 404 otherwise (another user's job included). */
async function ownJob(services: Services, req: Request, res: Response): Promise<JobState> {
  // the chain is dispatched by operation (src/http/route-table.ts): the id is the path's 4th segment
  const id = req.path.split('/')[3] ?? '';
  const store = jobsOf(services).store;
  const job = isJobId(id) ? await store.get(id) : undefined;
  if (!job || job.userId !== currentUser(res).id)
    throw errors.notFound(`Match job ${isJobId(id) ? id : ''}`.trim());
  return job;
}

export function createMatchJobHandler(services: Services): RequestHandler {
  return async (req: Request, res: Response) => {
    const jobs = jobsOf(services);
    const { id: userId, keyId } = currentUser(res);
    const idempotencyKey = parseIdempotencyKey(req.get('Idempotency-Key'));
    const options = createOptions(req);
    // a million rows take longer than a request's deadline: the upload is bounded by its size
    deadlineOf(res)?.release();
    const id = randomUUID();
    const files = jobFiles(jobs.root, id);
    await makeJobDir(files);
    let claimed = false;
    try {
      const stored = await storeUpload(req, files.input, {
        format: options.format,
        encoding: options.encoding,
        maxRows: jobs.maxRows,
      });
      if (idempotencyKey !== undefined) {
        const { format, encoding, ...rest } = options;
        const fingerprint = requestFingerprint('POST', `${req.baseUrl}${req.path}`, {
          format,
          ...rest,
          digest: stored.digest,
        });
        const claim = await services.limits.idempotency.claim(userId, idempotencyKey, fingerprint, id);
        if (claim.kind === 'conflict') throw errors.idempotencyConflict();
        if (claim.kind === 'in-progress') throw errors.idempotencyInProgress();
        if (claim.kind === 'replay') {
          await removeJobDir(files);
          res.set('Idempotent-Replayed', 'true');
          const body = claim.response.body as { id?: string } | undefined;
          if (body?.id) res.set('Location', `${req.baseUrl}/corporates/match-jobs/${body.id}`);
          res.status(claim.response.status).json(claim.response.body);
          return;
        }
        claimed = true;
      }
      const now = new Date().toISOString();
      const job: JobState = {
        id,
        userId,
        keyId,
        requestId: locals(res).requestId,
        status: 'queued',
        request: {
          format: options.format,
          ...(stored.encoding ? { encoding: stored.encoding } : {}),
          columns: stored.columns,
          ...(options.candidates !== undefined ? { candidates: options.candidates } : {}),
          ...(options.maxCredits !== undefined ? { maxCredits: options.maxCredits } : {}),
          ...(options.minConfidence !== undefined ? { minConfidence: options.minConfidence } : {}),
        },
        createdAt: now,
        updatedAt: now,
        totalRows: stored.totalRows,
        rejectedRows: stored.rejectedRows,
        rowsDone: 0,
        matched: 0,
        unmatched: 0,
        creditsCharged: 0,
        inputOffset: 0,
        resultsBytes: 0,
        attempts: 0,
      };
      await jobs.store.create(job);
      await enqueueMatchJob(jobs.queue, id);
      const body = publicView(job);
      if (idempotencyKey !== undefined)
        await services.limits.idempotency.complete(userId, idempotencyKey, id, { status: 202, body });
      services.logger.info(
        { jobId: id, rows: stored.totalRows, format: options.format },
        'match job created',
      );
      res.status(202).set('Location', `${req.baseUrl}/corporates/match-jobs/${id}`).json(body);
    } catch (error) {
      await removeJobDir(files);
      if (claimed && idempotencyKey !== undefined)
        await services.limits.idempotency.release(userId, idempotencyKey, id).catch(() => {});
      throw error;
    }
  };
}

export function listMatchJobsHandler(services: Services): RequestHandler {
  return async (req: Request, res: Response) => {
    const limit = req.query.limit === undefined ? 50 : Number(req.query.limit);
    const jobs = await jobsOf(services).store.list(currentUser(res).id, limit);
    if (stillAnswering(res)) res.json({ jobs: jobs.map(publicView) });
  };
}

export function getMatchJobHandler(services: Services): RequestHandler {
  return async (req: Request, res: Response) => {
    const job = await ownJob(services, req, res);
    if (stillAnswering(res)) res.json(publicView(job));
  };
}

export function cancelMatchJobHandler(services: Services): RequestHandler {
  return async (req: Request, res: Response) => {
    const job = await ownJob(services, req, res);
    const store = jobsOf(services).store;
    // a job that ended stays as it ended; the worker sees the cancellation before its next chunk
    if (!hasEnded(job.status)) await store.transition(job.id, ['queued', 'running', 'stopped'], 'cancelled');
    const now = (await store.get(job.id)) ?? job;
    if (stillAnswering(res)) res.json(publicView(now));
  };
}

export function resumeMatchJobHandler(services: Services): RequestHandler {
  return async (req: Request, res: Response) => {
    const job = await ownJob(services, req, res);
    // its one parameter is in the query
    refuseBody(req, 'must be empty: give maxCredits as a query parameter');
    const jobs = jobsOf(services);
    // only a stopped or failed job is queued again; any other is answered as it is
    if (job.status !== 'stopped' && job.status !== 'failed') {
      if (stillAnswering(res)) res.json(publicView(job));
      return;
    }
    const maxCredits = req.query.maxCredits === undefined ? undefined : Number(req.query.maxCredits);
    const request = maxCredits === undefined ? job.request : { ...job.request, maxCredits };
    const resumed = await jobs.store.transition(job.id, ['stopped', 'failed'], 'queued', {
      stopReason: '',
      endedAt: '',
      request: JSON.stringify(request),
    });
    if (resumed) await enqueueMatchJob(jobs.queue, job.id, job.attempts + 1);
    const now = (await jobs.store.get(job.id)) ?? job;
    if (stillAnswering(res)) res.status(202).json(publicView(now));
  };
}

const resultTypes: Record<ResultsFormat, string> = {
  csv: 'text/csv; charset=utf-8',
  jsonl: 'application/jsonl; charset=utf-8',
};

export function matchJobResultsHandler(services: Services): RequestHandler {
  return async (req: Request, res: Response) => {
    const job = await ownJob(services, req, res);
    const asked = typeof req.query.format === 'string' ? req.query.format : undefined;
    // Accept decides only when it names one of the two (`*/*` gets the upload's format)
    const accept = (req.get('Accept') ?? '').toLowerCase();
    const named = /text\/csv/.test(accept) || /jsonl|ndjson/.test(accept);
    const accepted = named ? req.accepts(['text/csv', 'application/jsonl', 'application/x-ndjson']) : false;
    const format: ResultsFormat =
      asked === 'csv' || asked === 'jsonl'
        ? asked
        : accepted === 'text/csv'
          ? 'csv'
          : accepted
            ? 'jsonl'
            : job.request.format;
    // a million rows take longer than a request's deadline to send
    deadlineOf(res)?.release();
    res.status(200).set({
      'Content-Type': resultTypes[format],
      'Content-Disposition': `attachment; filename="match-job-${job.id}.${format}"`,
      'X-Match-Job-Status': job.status,
    });
    await pipeline(Readable.from(formatResults(jobsOf(services).root, job, format)), res);
  };
}
