/**
 * The name-matching evaluation (bench/name-scoring.ts, bench/name-eval.ts): results beside
 * labels give the right counts per class, the targets fall at their thresholds, and the
 * records go out in requests of at most 1,000 with the results kept in input order. The
 * endpoint here is a stand-in that answers null for every record: it checks the wiring only,
 * never matching quality.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { matchPath, sendMatches } from '../../bench/name-eval.js';
import {
  type MatchResult,
  type NameEvalReport,
  nameEvalMarkdown,
  nameEvalTargets,
  scoreMatches,
} from '../../bench/name-scoring.js';
import type { LabelledRecord, MatchRecord } from '../../bench/name-variants.js';
import { outcomeReport } from '../../bench/names/outcomes.js';

const label = (kind: LabelledRecord['kind'], expected: string | null): LabelledRecord => ({
  kind,
  record: { name: 'x' },
  expected,
  from: expected,
});
const matched = (corporateNumber: string | null, candidates: string[] = []): MatchResult => ({
  match: corporateNumber ? { corporateNumber } : null,
  candidates: candidates.map((c) => ({ corporateNumber: c })),
});

describe('scoreMatches', () => {
  it('counts each record once per class and once in the total', () => {
    const table = scoreMatches(
      [
        label('romaji', 'A'), // matched right
        label('romaji', 'B'), // missed, B among the candidates
        label('romaji', 'C'), // missed, C not among them
        label('romaji', 'D'), // wrong company
        label('generic-name', null), // null, right
        label('generic-name', null), // matched where nothing was right: wrong
      ],
      [
        matched('A'),
        matched(null, ['B', 'X']),
        matched(null, ['X']),
        matched('E'),
        matched(null),
        matched('F'),
      ],
    );
    expect(table.rows).toEqual([
      {
        kind: 'romaji',
        records: 4,
        expectCompany: 4,
        matchedRight: 1,
        nullRight: 0,
        nullMissed: 2,
        missedInCandidates: 1,
        matchedWrong: 1,
      },
      {
        kind: 'generic-name',
        records: 2,
        expectCompany: 0,
        matchedRight: 0,
        nullRight: 1,
        nullMissed: 0,
        missedInCandidates: 0,
        matchedWrong: 1,
      },
    ]);
    expect(table.total).toMatchObject({
      kind: 'all',
      records: 6,
      expectCompany: 4,
      matchedRight: 1,
      matchedWrong: 2,
    });
  });

  it('refuses results that are not one per record', () => {
    expect(() => scoreMatches([label('romaji', 'A')], [])).toThrow(/one result per record/);
  });
});

describe('targets', () => {
  const report = (right: number, wrong: number, nulls: number, recordsPerSecond: number): NameEvalReport => {
    const labelled = [
      ...Array.from({ length: right + wrong + nulls }, () => label('width', 'A')),
      ...Array.from({ length: 1000 - right - wrong - nulls }, () => label('generic-name', null)),
    ];
    const results = [
      ...Array.from({ length: right }, () => matched('A')),
      ...Array.from({ length: wrong }, () => matched('B')),
      ...Array.from({ length: nulls }, () => matched(null)),
      ...Array.from({ length: 1000 - right - wrong - nulls }, () => matched(null)),
    ];
    return {
      companies: 100_000,
      seed: 1,
      perClass: 1000,
      batchSize: 1000,
      requests: 1,
      seconds: 1000 / recordsPerSecond,
      recordsPerSecond,
      table: scoreMatches(labelled, results),
    };
  };
  const met = (r: NameEvalReport) => nameEvalTargets(r).map((t) => t.met);

  it('wrong matches: at most 0.1% of the records', () => {
    expect(met(report(500, 1, 0, 3000))[0]).toBe(true);
    expect(met(report(500, 2, 0, 3000))[0]).toBe(false);
  });

  it('records with one right company: at least 99% matched', () => {
    expect(met(report(99, 0, 1, 3000))[1]).toBe(true);
    expect(met(report(98, 0, 2, 3000))[1]).toBe(false);
    // a wrong match is not a match either
    expect(met(report(98, 1, 1, 3000))[1]).toBe(false);
  });

  it('throughput: at least 2,000 records/s', () => {
    expect(met(report(100, 0, 0, 2000))[2]).toBe(true);
    expect(met(report(100, 0, 0, 1999))[2]).toBe(false);
  });

  it('writes a markdown row per class, the total and the targets', () => {
    const markdown = nameEvalMarkdown(report(99, 1, 0, 2500));
    expect(markdown).toContain('| width | 100 | 100 | 99 (99%) | 0 | 0 (0) | 1 (1%) |');
    expect(markdown).toContain('| generic-name | 900 | 0 | 0 (-) | 900 | 0 (0) | 0 (0%) |');
    expect(markdown).toContain('| all | 1000 | 100 | 99 (99%) | 900 | 0 (0) | 1 (0.1%) |');
    expect(markdown).toMatch(/records\/s in requests of 1000 \| 2500 \| >= 2,000 .* \| yes \|/);
    expect(markdown).not.toContain('### Outcomes per class');
  });

  it('adds the outcomes and the calibration when the report has them', () => {
    const labelled = [label('width', 'A'), label('width', 'A'), label('generic-name', null)];
    const results = [matched('A', ['A']), matched(null, ['B', 'A']), matched(null, ['C'])];
    const markdown = nameEvalMarkdown({
      ...report(1, 0, 0, 2500),
      outcomes: outcomeReport(labelled, results),
    });
    expect(markdown).toContain('### Outcomes per class');
    expect(markdown).toContain('| width | 2 | 2 | 0 | 1 (50%) | 1 (50%) | 0 (0%) | 0 (0%) | 0 (0%) |');
    expect(markdown).toContain('| generic-name | 1 | 0 | 0 | 0 (0%) | 0 (0%) | 0 (0%) | 1 (100%) | 0 (0%) |');
    expect(markdown).toContain('### Calibration of candidates');
  });
});

describe('sendMatches (a stand-in endpoint: wiring only)', () => {
  let server: Server;
  let url: string;
  const batches: number[] = [];
  let failNext = false;

  beforeAll(async () => {
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk) => {
        body += chunk;
      });
      req.on('end', () => {
        const { records } = JSON.parse(body) as { records: MatchRecord[] };
        batches.push(records.length);
        if (req.url !== matchPath || req.headers['x-api-key'] !== 'k' || failNext) {
          res.writeHead(failNext ? 503 : 404).end('{"error":"no"}');
          return;
        }
        // echoes each record's name as a candidate, so the order can be checked
        const results = records.map((r) => ({ match: null, candidates: [{ corporateNumber: r.name }] }));
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ results }));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
  // each test sees only its own requests, in whatever order the tests run
  beforeEach(() => {
    batches.length = 0;
    failNext = false;
  });

  it('sends requests of at most the batch size and keeps the results in input order', async () => {
    const records = Array.from({ length: 2500 }, (_, i) => ({ name: String(i) }));
    const sent = await sendMatches({ apiUrl: url, key: 'k', records, batchSize: 1000 });
    expect(batches).toEqual([1000, 1000, 500]);
    expect(sent.requests).toBe(3);
    expect(sent.results.map((r) => r.candidates?.[0]?.corporateNumber)).toEqual(records.map((r) => r.name));
  });

  it('stops at an answer that is not 200, naming the status', async () => {
    failNext = true;
    await expect(
      sendMatches({ apiUrl: url, key: 'k', records: [{ name: 'a' }], batchSize: 1000 }),
    ).rejects.toThrow(/answered 503/);
    failNext = false;
  });
});
