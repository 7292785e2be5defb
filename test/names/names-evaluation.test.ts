/**
 * Name-matching quality through the REAL endpoint: the start-up sample's 2,000 companies (and
 * the few extra ones bench/names/generate.ts adds so that the rare classes have material: 83)
 * indexed by the real pipeline on the shared engine, every class of bench/name-variants.ts and
 * bench/names/crm-classes.ts spelled from them (1,210 labelled records), sent to
 * `POST /rest/v1/corporates/match` over HTTP in requests of 1,000.
 *
 * The labels come from the evaluation's own rules (bench/names/rules.ts), never from the
 * product's name code. Asserted: no wrong confident match at all (0.1% of the records is the
 * target; at this size that is zero), and per class the floors below for the labelled company
 * matched and found (matched, or among the first 5 candidates), with the judge shipped; and the
 * calibration of a judge table fitted on this register (test/fixtures/match/judge-weights-sample.json):
 * the table shipped is fitted on the register of 1,000,000 companies, where a near name or a
 * namesake is right less often than among 2,000 (docs/names.md). The floors are what the product
 * measured when they were set, a little below: RAISE THEM as matching improves, never lower
 * them to let a change through.
 *
 * Time: about 45 s of test time on an idle 2-core machine (loading the companies 21 s, their
 * rebuild 9 s, the labels 5 s, the two requests 5 s); two to three times that while other work
 * loads the machine.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LabelledRecord, SampleCompany } from '../../bench/name-variants.js';
import { allClasses, extraCompanies, makeEvaluationRecords } from '../../bench/names/generate.js';
import {
  calibration,
  type EvaluatedResult,
  type OutcomeRow,
  outcomeMarkdown,
  outcomeReport,
} from '../../bench/names/outcomes.js';
import { MemoryDeadLetter } from '../../indexer/dead-letter.js';
import { IngestPipeline } from '../../indexer/pipeline.js';
import { rebuildCompanies } from '../../indexer/rebuild.js';
import type { SourceRecord } from '../../indexer/source-types.js';
import { generateDataSet, sampleSize } from '../../sample-data/index.js';
import { createLimits, type Limits } from '../../src/limits/limits.js';
import { indexName } from '../../src/opensearch/indices.js';
import { projectRoot } from '../../src/project-root.js';
import type { Services } from '../../src/services.js';
import { setUpServices } from '../support/env.js';
import { search, startLimitsTestApp, type TestApp } from '../support/limits-test-app.js';

const matchPath = '/rest/v1/corporates/match';
const perRequest = 1000;

/**
 * Floors per class, in % of the class's records whose label names a company: [matched right,
 * found (matched or among the first 5 candidates)]. Measured with the product at the commit
 * that set them (the comment beside each), each set a little below: 7 points, or one record
 * and a point where a class has fewer than 16. Raised with the judge (similar names as
 * candidates, the spoken key, numerals, sites, the legal form as evidence): the classes that had
 * floors of 0 (letter names, English, numerals, typos) now have their own. RAISE THEM as
 * matching improves.
 * Classes whose labels are all null (no confident match is right) have none: their records may
 * only end without a match, which the zero-wrong assertion checks.
 */
// biome-ignore format: one class a line, with what was measured
const floors: Record<string, readonly [matched: number, found: number]> = {
  'legal-form-moved': [93, 93], // 30/30 matched, 30/30 found
  'legal-form-abbreviated': [93, 93], // 30/30 matched, 30/30 found
  'legal-form-dropped': [93, 93], // 29/29 matched, 29/29 found
  width: [93, 93], // 30/30 matched, 30/30 found
  hiragana: [93, 93], // 30/30 matched, 30/30 found
  'small-kana-large': [93, 93], // 30/30 matched, 30/30 found
  'vu-as-b': [91, 91], // 13/13 matched, 13/13 found
  'long-vowel': [89, 93], // 29/30 matched, 30/30 found
  separators: [89, 93], // 29/30 matched, 30/30 found
  'old-new-kanji': [93, 93], // 30/30 matched, 30/30 found
  'repeat-mark-written-out': [93, 93], // 30/30 matched, 30/30 found
  'branch-word': [89, 93], // 29/30 matched, 30/30 found
  'reading-only': [93, 93], // 30/30 matched, 30/30 found
  romaji: [93, 93], // 29/29 matched, 29/29 found
  'one-character-changed': [1, 93], // 2/24 matched, 24/24 found
  'same-prefix': [0, 93], // 1/22 matched, 22/22 found
  'namesakes-same-prefecture': [89, 89], // 10/10 matched, 10/10 found
  'namesakes-no-evidence': [82, 82], // 6/6 matched, 6/6 found
  'namesakes-right-prefecture': [93, 93], // 30/30 matched, 30/30 found
  'letters-as-letter-names': [89, 89], // 10/10 matched, 10/10 found
  'letter-names-variant-spelling': [89, 89], // 10/10 matched, 10/10 found
  'letter-names-as-letters': [90, 90], // 12/12 matched, 12/12 found
  'loanword-as-english': [83, 83], // 27/30 matched, 27/30 found
  'english-as-loanword': [80, 93], // 14/16 matched, 16/16 found
  'numerals-as-digits': [93, 93], // 24/24 matched, 24/24 found
  'digits-as-numerals': [91, 91], // 14/14 matched, 14/14 found
  'symbol-words': [93, 93], // 30/30 matched, 30/30 found
  'latin-legal-suffix': [68, 93], // 22/29 matched, 29/29 found
  'legal-form-one-character': [93, 93], // 29/29 matched, 29/29 found
  'legal-form-square': [93, 93], // 30/30 matched, 30/30 found
  'bank-transfer-kana': [93, 93], // 30/30 matched, 30/30 found
  'invisible-characters': [93, 93], // 30/30 matched, 30/30 found
  'department-word': [79, 93], // 26/30 matched, 30/30 found
  'corporate-number-written': [93, 93], // 30/30 matched, 30/30 found
  'reading-partly-kanji': [93, 93], // 29/30 matched, 29/30 found (a reading derived for the record)
  'legal-form-decides': [93, 93], // 30/30 matched, 30/30 found
  'word-dropped': [9, 93], // 5/30 matched, 30/30 found
  'word-added': [0, 93], // 1/30 matched, 30/30 found
  'typo-dropped': [9, 93], // 5/30 matched, 30/30 found
  'typo-doubled': [3, 93], // 3/30 matched, 30/30 found
  'typo-swapped': [0, 73], // 1/30 matched, 24/30 found
  'typo-replaced': [0, 93], // 1/30 matched, 30/30 found
};

let services: Services;
let limits: Limits;
let app: TestApp;
/** The same endpoint judging with the table fitted on this register, for the calibration. */
let sampleApp: TestApp;
const sampleJudgeFile = path.join(projectRoot, 'test', 'fixtures', 'match', 'judge-weights-sample.json');
let labelled: LabelledRecord[];
let results: EvaluatedResult[];
/** Seeds the calibration is checked over (none of them a fit seed of the sample's table). */
const calibrationSeeds = [3, 5, 19];
const heldOut: Array<{ labelled: LabelledRecord[]; results: EvaluatedResult[] }> = [];

beforeAll(async () => {
  services = await setUpServices('names-eval');
  const dir = mkdtempSync(path.join(os.tmpdir(), 'names-eval-'));
  const files = await generateDataSet({
    companies: sampleSize.companies,
    jobs: 10,
    seed: sampleSize.seed,
    now: new Date('2026-11-21'),
    outDir: dir,
  });
  const sample = readFileSync(files.corporates, 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as SourceRecord & SampleCompany);
  const byNumber = new Map(sample.map((record) => [record.corporateNumber, record]));
  const extra = extraCompanies(sample, 11, 12).map(({ copyOf, corporateNumber, name, furigana }) => ({
    ...(byNumber.get(copyOf) as SourceRecord & SampleCompany),
    corporateNumber,
    name,
    furigana,
  }));
  const all = [...sample, ...extra];
  const now = new Date('2026-11-21T12:00:00Z');
  const deadLetter = new MemoryDeadLetter();
  const prefix = services.config.indexPrefix;
  const pipeline = new IngestPipeline({
    client: services.opensearch,
    indexPrefix: prefix,
    deadLetter,
    now: () => now,
  });
  for (const record of all) await pipeline.add(record, 'names-eval');
  await pipeline.flush();
  expect(deadLetter.entries).toEqual([]);
  await rebuildCompanies(services.opensearch, prefix, pipeline.touched, { now });
  await services.opensearch.indices.refresh({ index: indexName(prefix, 'corporates') });

  limits = createLimits({
    redis: services.redis,
    keyPrefix: services.config.redisPrefix,
    config: { ratePerSecond: 1_000_000 },
  });
  app = await startLimitsTestApp({
    limits,
    opensearch: services.opensearch,
    indexPrefix: prefix,
    seed: false,
  });
  await limits.ledger.grant('evaluator', 1_000_000);

  // NAMES_EVAL_SEED: another seed writes a fit set for bench/fit-judge.ts (its floors are seed 3's)
  labelled = makeEvaluationRecords(all, { seed: Number(process.env.NAMES_EVAL_SEED ?? 3), perClass: 30 });
  results = await answersTo(labelled);
  sampleApp = await startLimitsTestApp({
    limits,
    opensearch: services.opensearch,
    indexPrefix: prefix,
    seed: false,
    matchJudgeFile: sampleJudgeFile,
  });
  // the calibration is checked over seeds the sample's table was not fitted to, with that table
  if (process.env.NAMES_EVAL_SEED === undefined) {
    for (const seed of calibrationSeeds) {
      const more = makeEvaluationRecords(all, { seed, perClass: 30 });
      const answers = await answersTo(more, sampleApp);
      heldOut.push({ labelled: more, results: answers });
      // NAMES_EVAL_HELD_OUT_DUMP=<prefix>: these answers to <prefix>-<seed>.json, for
      // bench/names-report.ts (the calibration table and plot of docs/names.md)
      const dumpPrefix = process.env.NAMES_EVAL_HELD_OUT_DUMP;
      if (dumpPrefix)
        writeFileSync(
          `${dumpPrefix}-${seed}.json`,
          JSON.stringify(more.map((entry, i) => ({ entry, result: answers[i] }))),
        );
    }
  }
  // NAMES_EVAL_DUMP: the records with the results of the endpoint judging with the sample's
  // table, for bench/fit-judge.ts to fit that table again (the candidates depend on the table)
  if (process.env.NAMES_EVAL_DUMP) {
    const answers = await answersTo(labelled, sampleApp);
    writeFileSync(
      process.env.NAMES_EVAL_DUMP,
      JSON.stringify(labelled.map((entry, i) => ({ entry, result: answers[i] }))),
    );
  }
}, 240_000);

/** The match endpoint's answers to labelled records, in order, `perRequest` records a request. */
async function answersTo(records: readonly LabelledRecord[], to: TestApp = app): Promise<EvaluatedResult[]> {
  const answers: EvaluatedResult[] = [];
  for (let at = 0; at < records.length; at += perRequest) {
    const batch = records.slice(at, at + perRequest).map((entry) => entry.record);
    const res = await search(to.url, 'evaluator', {
      path: matchPath,
      body: { records: batch, candidates: 10 },
    });
    const text = await res.text();
    expect(res.status, text.slice(0, 300)).toBe(200);
    answers.push(...(JSON.parse(text) as { results: EvaluatedResult[] }).results);
  }
  return answers;
}

afterAll(async () => {
  await app?.close();
  await sampleApp?.close();
  await services?.close();
});

const pct = (part: number, whole: number) => (whole > 0 ? (100 * part) / whole : 100);

describe('name matching over the sample, through the endpoint', () => {
  let rows: Map<string, OutcomeRow>;
  let total: OutcomeRow;

  beforeAll(() => {
    const report = outcomeReport(labelled, results);
    rows = new Map(report.rows.map((row) => [row.kind, row]));
    total = report.total;
    // the figures the floors are read from (vitest shows them with --reporter verbose or on failure)
    console.log(outcomeMarkdown(report));
  });

  it('has at least 1,000 records and every class', () => {
    expect(labelled.length).toBeGreaterThanOrEqual(1000);
    expect(results).toHaveLength(labelled.length);
    for (const kind of allClasses) expect(rows.get(kind)?.records ?? 0, kind).toBeGreaterThan(0);
  });

  it('makes no wrong confident match (at most 0.1% of the records: none at this size)', () => {
    const wrong = labelled
      .map((entry, i) => ({ entry, match: results[i]?.match?.corporateNumber ?? null }))
      .filter(({ entry, match }) => match !== null && match !== entry.expected)
      .map(
        ({ entry, match }) =>
          `${entry.kind}: ${JSON.stringify(entry.record)} -> ${match}, label ${entry.expected}`,
      );
    expect(wrong).toEqual([]);
    expect(total.wrongMatch).toBe(0);
  });

  it("confidence means what it says: over 3,630 records, with this register's table, each band of 0.1 with 30 candidates or more is right within 5 points of its middle", () => {
    // seeds 3, 5 and 19, none of them the sample's table was fitted to (seeds 7, 11, 13, 17);
    // docs/names.md has the table. A band with fewer candidates is left out, its share being
    // mostly chance at that size.
    if (process.env.NAMES_EVAL_SEED !== undefined) return;
    expect(heldOut).toHaveLength(calibrationSeeds.length);
    const bands = calibration(
      heldOut.flatMap((set) => set.labelled),
      heldOut.flatMap((set) => set.results),
    );
    const checked = bands.filter((band) => band.candidates >= 30);
    expect(checked.length).toBeGreaterThanOrEqual(3);
    const off = checked
      .filter((band) => Math.abs(band.gap ?? 1) > 0.05 + 1e-9)
      .map(
        (band) => `${band.from}-${band.to}: ${band.right} of ${band.candidates} right (${band.shareRight})`,
      );
    expect(off).toEqual([]);
  });

  it.each(allClasses)('%s: no wrong match; matched and found at or above its floors', (kind) => {
    const row = rows.get(kind) as OutcomeRow;
    expect(row.wrongMatch, `${kind}: wrong matches`).toBe(0);
    if (row.labelled === 0) return;
    const floor = floors[kind];
    expect(floor, `${kind}: a class whose labels name a company needs its floors`).toBeDefined();
    if (!floor) return;
    const matched = pct(row.rightMatch, row.labelled);
    const found = pct(row.rightMatch + row.inCandidates, row.labelled);
    expect(matched, `${kind}: matched % of ${row.labelled}`).toBeGreaterThanOrEqual(floor[0]);
    expect(found, `${kind}: found % of ${row.labelled}`).toBeGreaterThanOrEqual(floor[1]);
  });
});
