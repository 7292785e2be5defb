/**
 * What the strict JSON check (src/http/strict-json.ts) adds to every POST: its time on a
 * typical search body of about 1 kB, beside what the body's parse already costs (UTF-8 decode
 * + JSON.parse, as body-parser does it). Also a 100 kB body (the largest allowed) and a body
 * with escapes and non-ASCII keys. In one process, rounds interleaved, median of the rounds.
 * docs/decisions/http-server-and-bodies.md has the figures.
 *
 *   npx tsx bench/strict-json.ts [iterations per round, default 20000]
 */
import { findJsonTextProblems } from '../src/http/strict-json.js';

const iterations = Number(process.argv[2] ?? 20_000);
const rounds = 15;

/** About 1 kB: the shape of the README's searches, with Japanese text. */
const typical = {
  filters: {
    corporateName: { anyContains: ['株式会社', 'ホールディングス'] },
    prefectureId: { any: [13, 14, 11, 12] },
    industryCategoryId: { any: [4, 9, 16], none: [97, 98] },
    employeeCount: { min: 10, max: 5000 },
    jobTitle: { anyContains: ['営業', 'エンジニア', '事務スタッフ'] },
    foundedAt: { from: '1990-01-01', to: '2020-12-31' },
    jobCreatedAt: { from: '2026-10-01', to: '2026-11-20' },
    summary: { allContains: ['DX', '働きやすい職場'], noneContains: ['派遣'] },
  },
  filterGroups: [
    { prefectureId: { any: [27, 28] }, capitalMillionYen: { min: 10 } },
    { jobTitle: { anyContains: ['倉庫スタッフ（週３日〜）'] }, hasDispatchLicense: true },
    { corporateName: { anyContains: ['ｶﾌﾞｼｷｶﾞｲｼｬ', '髙橋'] }, marketCode: { any: ['tse_prime'] } },
  ],
  fields: [
    'corporateNumber',
    'name',
    'furigana',
    'prefectureId',
    'cityName',
    'employeeCount',
    'capitalMillionYen',
  ],
  sort: { field: 'employeeCount', order: 'desc' },
  facets: ['prefectureId', 'industryCategoryId'],
  limit: 50,
  offset: 0,
};
const bodies = {
  'typical 1 kB search body': Buffer.from(JSON.stringify(typical)),
  'escapes, pairs, quotes': Buffer.from(
    JSON.stringify({ ...typical, note: 'say "hi" \\ 😀 \n\t'.repeat(8) }).replaceAll('😀', '\\ud83d\\ude00'),
  ),
  '100 kB body': Buffer.from(
    JSON.stringify({
      ...typical,
      filters: {
        ...typical.filters,
        corporateNumber: { any: Array.from({ length: 6_500 }, (_, i) => String(1e12 + i)) },
      },
    }),
  ),
};

function time(run: () => void): number {
  const start = process.hrtime.bigint();
  for (let i = 0; i < iterations; i++) run();
  return Number(process.hrtime.bigint() - start) / iterations;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;

let sink = 0;
for (const [name, body] of Object.entries(bodies)) {
  if (findJsonTextProblems(body).length > 0) throw new Error(`${name}: the bench body has problems`);
  const parse: number[] = [];
  const check: number[] = [];
  for (let round = 0; round < rounds; round++) {
    parse.push(
      time(() => {
        sink += (JSON.parse(body.toString('utf8')) as object) ? 1 : 0;
      }),
    );
    check.push(
      time(() => {
        sink += findJsonTextProblems(body).length;
      }),
    );
  }
  const p = median(parse);
  const c = median(check);
  console.log(
    `${name} (${body.length} bytes): decode + JSON.parse ${(p / 1000).toFixed(2)} µs, strict check ${(c / 1000).toFixed(2)} µs (+${Math.round((100 * c) / p)}%)`,
  );
}
if (sink < 0) console.log(sink);
