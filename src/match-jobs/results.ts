/**
 * A job's results as GET .../match-jobs/{id}/results sends them, streamed: the input file and
 * the results file read side by side (one results line per input line, in input order), each
 * row's uploaded columns kept and the match columns added. Rows not answered yet are left out
 * while the job runs; once it stopped or was cancelled they follow as `unanswered`.
 *
 *   CSV:   <the upload's columns>,rowNumber,matchStatus,matchCorporateNumber,matchName,matchScore,
 *          matchConfidence,candidateCount,firstCandidateCorporateNumber,firstCandidateName,
 *          firstCandidateScore,rejectReason
 *   JSONL: {"row":1,"input":{...},"status":"matched","match":{...},"candidateCount":1,
 *           "firstCandidate":{...},"candidates":[{...}]}
 *          each company object with corporateNumber, name, score, confidence, prefectureId,
 *          cityName, matchedOn (a line stored before candidates were kept: the first only)
 */
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { jobFiles } from './files.js';
import type { JobState } from './job-store.js';
import type { CandidateSummary, ResultLine } from './process.js';
import type { InputLine } from './upload.js';

export type ResultsFormat = 'csv' | 'jsonl';

export type RowStatus = ResultLine['s'] | 'unanswered';

export const matchColumns = [
  'rowNumber',
  'matchStatus',
  'matchCorporateNumber',
  'matchName',
  'matchScore',
  'matchConfidence',
  'candidateCount',
  'firstCandidateCorporateNumber',
  'firstCandidateName',
  'firstCandidateScore',
  'rejectReason',
] as const;

function lines(file: string, end?: number): AsyncIterator<string> {
  if (end === 0) return (async function* () {})();
  const stream = createReadStream(file, end === undefined ? {} : { end: end - 1 });
  return createInterface({ input: stream, crlfDelay: Number.POSITIVE_INFINITY })[Symbol.asyncIterator]();
}

/** The uploaded values of a row, by column. */
function inputValues(job: JobState, row: InputLine): unknown[] {
  const source = row.v ?? row.m;
  if (Array.isArray(source)) return job.request.columns.map((_, index) => source[index] ?? '');
  if (source !== null && typeof source === 'object') {
    const object = source as Record<string, unknown>;
    return job.request.columns.map((column) => object[column] ?? '');
  }
  // a JSONL line that was not JSON: its text under the first column
  return job.request.columns.map((_, index) => (index === 0 ? String(source ?? '') : ''));
}

export interface ResultRow {
  row: number;
  input: unknown[];
  status: RowStatus;
  result?: ResultLine;
}

/** The job's rows in input order, each with its result (or none yet). */
export async function* resultRows(root: string, job: JobState): AsyncGenerator<ResultRow> {
  const files = jobFiles(root, job.id);
  const inputs = lines(files.input);
  const results = lines(files.results, job.resultsBytes);
  const rest = job.status === 'stopped' || job.status === 'cancelled' || job.status === 'failed';
  try {
    for (;;) {
      const input = await inputs.next();
      if (input.done) return;
      const row = JSON.parse(input.value) as InputLine;
      const answered = await results.next();
      if (!answered.done) {
        const result = JSON.parse(answered.value) as ResultLine;
        yield { row: row.r, input: inputValues(job, row), status: result.s, result };
      } else if (rest) {
        yield { row: row.r, input: inputValues(job, row), status: 'unanswered' };
      } else return;
    }
  } finally {
    await inputs.return?.();
    await results.return?.();
  }
}

function cell(value: unknown): string {
  const text =
    value === undefined || value === null ? '' : typeof value === 'string' ? value : JSON.stringify(value);
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** The first candidate: of the candidates where the line holds them, else its `f` (older lines). */
function firstOf(result: ResultLine | undefined): CandidateSummary | undefined {
  return result?.c ? result.c[0] : result?.f;
}

function candidateObject(candidate: CandidateSummary | undefined) {
  return candidate ?? null;
}

/** The response body's text, piece by piece. */
export async function* formatResults(
  root: string,
  job: JobState,
  format: ResultsFormat,
): AsyncGenerator<string> {
  let batch = '';
  if (format === 'csv') batch = `${[...job.request.columns, ...matchColumns].map(cell).join(',')}\r\n`;
  for await (const { row, input, status, result } of resultRows(root, job)) {
    if (format === 'csv') {
      const m = result?.m;
      const f = firstOf(result);
      batch += `${[
        ...input,
        row,
        status,
        m?.corporateNumber,
        m?.name,
        m?.score,
        m?.confidence,
        result?.n,
        f?.corporateNumber,
        f?.name,
        f?.score,
        result?.e,
      ]
        .map(cell)
        .join(',')}\r\n`;
    } else {
      const named = Object.fromEntries(job.request.columns.map((column, index) => [column, input[index]]));
      batch += `${JSON.stringify({
        row,
        input: named,
        status,
        match: candidateObject(result?.m),
        ...(result?.n !== undefined ? { candidateCount: result.n } : {}),
        ...(result?.n !== undefined ? { firstCandidate: candidateObject(firstOf(result)) } : {}),
        ...(result?.c !== undefined ? { candidates: result.c } : {}),
        ...(result?.e !== undefined ? { reason: result.e } : {}),
      })}\n`;
    }
    if (batch.length > 64_000) {
      yield batch;
      batch = '';
    }
  }
  if (batch !== '') yield batch;
}
