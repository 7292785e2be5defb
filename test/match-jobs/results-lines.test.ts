/**
 * A job's results file read back (src/match-jobs/results.ts) without servers: lines written
 * since the candidates are kept (`c`) and lines of a job stored before that (`f`, the first
 * candidate only), side by side in one file, as a job running across an upgrade has them.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { jobFiles } from '../../src/match-jobs/files.js';
import type { JobState } from '../../src/match-jobs/job-store.js';
import { formatResults } from '../../src/match-jobs/results.js';
import { parseCsv } from '../../src/text/csv.js';

const id = '0f0e0d0c-0b0a-4908-8706-050403020100';
const a = { corporateNumber: '1000000000001', name: 'サクラ精機株式会社', score: 0.4, confidence: 0.4 };
const b = { corporateNumber: '1000000000002', name: 'サクラ精機有限会社', score: 0.3, confidence: 0.3 };
const where = { prefectureId: 13, cityName: '千代田区', matchedOn: ['name'] };

function jobWithLines(): { root: string; job: JobState } {
  const root = mkdtempSync(path.join(os.tmpdir(), 'job-results-'));
  const files = jobFiles(root, id);
  mkdirSync(files.dir, { recursive: true });
  const inputs = [1, 2].map((r) => JSON.stringify({ r, m: { name: 'サクラ精機' } }));
  writeFileSync(files.input, `${inputs.join('\n')}\n`);
  const results = [
    // an older line: the first candidate only
    JSON.stringify({ r: 1, s: 'unmatched', n: 2, f: a }),
    JSON.stringify({
      r: 2,
      s: 'unmatched',
      n: 2,
      c: [
        { ...b, ...where },
        { ...a, ...where },
      ],
    }),
  ];
  const text = `${results.join('\n')}\n`;
  writeFileSync(files.results, text);
  const job = {
    id,
    status: 'completed',
    request: { format: 'jsonl', columns: ['name'] },
    resultsBytes: Buffer.byteLength(text),
  } as JobState;
  return { root, job };
}

async function collect(root: string, job: JobState, format: 'csv' | 'jsonl'): Promise<string> {
  let text = '';
  for await (const piece of formatResults(root, job, format)) text += piece;
  return text;
}

describe('a results file with older and newer lines', () => {
  it('JSONL: candidates where the line kept them, the first candidate from either', async () => {
    const { root, job } = jobWithLines();
    const [older, newer] = (await collect(root, job, 'jsonl'))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(older).toEqual({
      row: 1,
      input: { name: 'サクラ精機' },
      status: 'unmatched',
      match: null,
      candidateCount: 2,
      firstCandidate: a,
    });
    expect(newer).toMatchObject({ row: 2, candidateCount: 2, firstCandidate: { ...b, ...where } });
    expect(newer.candidates).toEqual([
      { ...b, ...where },
      { ...a, ...where },
    ]);
  });

  it('CSV: the first candidate of either kind of line in its columns', async () => {
    const { root, job } = jobWithLines();
    const [header, ...rows] = parseCsv(await collect(root, job, 'csv')).map((record) => record.fields);
    const at = (name: string) => (header as string[]).indexOf(name);
    expect(rows.map((row) => row[at('firstCandidateCorporateNumber')])).toEqual([
      a.corporateNumber,
      b.corporateNumber,
    ]);
    expect(rows.map((row) => row[at('candidateCount')])).toEqual(['2', '2']);
  });
});
