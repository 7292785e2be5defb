/**
 * Scoring of name matching: the endpoint's results beside the labels of bench/name-variants.ts,
 * per class of spelling, and the targets (docs/bench.md, "Name matching"). Pure: results and
 * labels in, table out, so the scoring is tested without an endpoint.
 *
 * Per record, one of:
 *   matched right   `match` names the labelled company
 *   null, right     `match` is null and the label is null (only candidates, as it should be)
 *   null, missed    `match` is null but the label names a company (a confident match was due)
 *   matched wrongly `match` names a company and the label names another one, or none
 * A record labelled `certain: false` (bench/names/crm-classes.ts) is due only when matched.
 */
import type { LabelledRecord, VariantClass } from './name-variants.js';
import { type OutcomeReport, outcomeMarkdown } from './names/outcomes.js';

/** One result of `POST /rest/v1/corporates/match`, as far as the scoring reads it. */
export interface MatchResult {
  match: { corporateNumber: string } | null;
  candidates?: ReadonlyArray<{ corporateNumber: string }>;
}

export interface ClassRow {
  kind: VariantClass | 'all';
  records: number;
  /** records whose label names a company */
  expectCompany: number;
  matchedRight: number;
  nullRight: number;
  nullMissed: number;
  /** of the missed: the labelled company was among the candidates */
  missedInCandidates: number;
  matchedWrong: number;
}

export interface NameEvalTable {
  rows: ClassRow[];
  total: ClassRow;
}

const emptyRow = (kind: ClassRow['kind']): ClassRow => ({
  kind,
  records: 0,
  expectCompany: 0,
  matchedRight: 0,
  nullRight: 0,
  nullMissed: 0,
  missedInCandidates: 0,
  matchedWrong: 0,
});

/** Results in the order of the labelled records (the endpoint answers in input order). */
export function scoreMatches(
  labelled: readonly LabelledRecord[],
  results: readonly MatchResult[],
): NameEvalTable {
  if (labelled.length !== results.length)
    throw new Error(`${results.length} results for ${labelled.length} records: one result per record is due`);
  const rows = new Map<VariantClass, ClassRow>();
  const total = emptyRow('all');
  labelled.forEach((entry, i) => {
    const result = results[i] as MatchResult;
    let row = rows.get(entry.kind);
    if (!row) {
      row = emptyRow(entry.kind);
      rows.set(entry.kind, row);
    }
    for (const counts of [row, total]) {
      counts.records++;
      const matched = result.match?.corporateNumber ?? null;
      // a record a person could not be sure of (certain: false): its company matched is right
      // and counts as due, no match is right too
      if (entry.certain === false && entry.expected !== null && matched !== entry.expected) {
        if (matched === null) counts.nullRight++;
        else counts.matchedWrong++;
        continue;
      }
      if (entry.expected !== null) counts.expectCompany++;
      if (matched === null) {
        if (entry.expected === null) counts.nullRight++;
        else {
          counts.nullMissed++;
          if (result.candidates?.some((c) => c.corporateNumber === entry.expected))
            counts.missedInCandidates++;
        }
      } else if (matched === entry.expected) counts.matchedRight++;
      else counts.matchedWrong++;
    }
  });
  return { rows: [...rows.values()], total };
}

export interface NameEvalReport {
  companies: number;
  seed: number;
  perClass: number;
  batchSize: number;
  requests: number;
  seconds: number;
  recordsPerSecond: number;
  table: NameEvalTable;
  /** the outcomes per class and the calibration (bench/names/outcomes.ts); absent in old reports */
  outcomes?: OutcomeReport;
}

export interface Target {
  what: string;
  value: number;
  target: string;
  met: boolean;
}

const round = (value: number, digits: number) => Math.round(value * 10 ** digits) / 10 ** digits;

/**
 * The three targets: wrong confident matches at most 0.1% of the records; of the records whose
 * label names a company (its name folds to exactly one company after the evidence), at least
 * 99% matched; at least 2,000 records/s in requests of 1,000 (set for 100,000 companies).
 */
export function nameEvalTargets(report: NameEvalReport): Target[] {
  const { total } = report.table;
  const wrong = total.records > 0 ? total.matchedWrong / total.records : 0;
  const matched = total.expectCompany > 0 ? total.matchedRight / total.expectCompany : 0;
  return [
    {
      what: 'name matching: wrong confident matches, % of records',
      value: round(wrong * 100, 3),
      target: '<= 0.1',
      met: wrong <= 0.001,
    },
    {
      what: 'name matching: records with one right company matched, %',
      value: round(matched * 100, 2),
      target: '>= 99',
      met: matched >= 0.99,
    },
    {
      what: `name matching: records/s in requests of ${report.batchSize}`,
      value: round(report.recordsPerSecond, 0),
      target: '>= 2,000 (at 100,000 companies)',
      met: report.recordsPerSecond >= 2000,
    },
  ];
}

const pct = (part: number, whole: number) => (whole > 0 ? `${round((100 * part) / whole, 1)}%` : '-');

/** The markdown section the bench report carries. */
export function nameEvalMarkdown(report: NameEvalReport): string {
  const lines = [
    '## Name matching (POST /rest/v1/corporates/match)',
    '',
    `${report.table.total.records.toLocaleString('en')} labelled records (bench/name-variants.ts, seed ${report.seed}, up to ${report.perClass} per class) from ${report.companies.toLocaleString('en')} companies, in ${report.requests} requests of up to ${report.batchSize}, one at a time: ${round(report.seconds, 1)} s, ${round(report.recordsPerSecond, 0).toLocaleString('en')} records/s.`,
    '',
    '| class | records | label: a company | matched right | null, right | null, missed (right one among candidates) | matched wrongly |',
    '|---|---|---|---|---|---|---|',
  ];
  for (const row of [...report.table.rows, report.table.total])
    lines.push(
      `| ${row.kind} | ${row.records} | ${row.expectCompany} | ${row.matchedRight} (${pct(row.matchedRight, row.expectCompany)}) | ${row.nullRight} | ${row.nullMissed} (${row.missedInCandidates}) | ${row.matchedWrong} (${pct(row.matchedWrong, row.records)}) |`,
    );
  lines.push('', '| target | value | wanted | met |', '|---|---|---|---|');
  for (const target of nameEvalTargets(report))
    lines.push(`| ${target.what} | ${target.value} | ${target.target} | ${target.met ? 'yes' : 'no'} |`);
  if (report.outcomes) lines.push('', outcomeMarkdown(report.outcomes, '<report>-calibration.svg').trimEnd());
  return `${lines.join('\n')}\n`;
}
