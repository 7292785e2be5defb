/**
 * The matching evaluation's outcomes and calibration over one or more dumps of the evaluation's
 * answers ([{entry, result}]), as markdown, and the reliability diagram as SVG: the figures
 * docs/names.md publishes for seeds the judge table was not fitted to. The start-up sample's,
 * judged with its own table (test/names/names-evaluation.test.ts writes seeds 3, 5 and 19):
 *
 *   NAMES_EVAL_HELD_OUT_DUMP=.local/names-held npx vitest run test/names/names-evaluation.test.ts
 *   npx tsx bench/names-report.ts --dump .local/names-held-3.json --dump .local/names-held-5.json \
 *     --dump .local/names-held-19.json [--svg docs/names-calibration.svg]
 *
 * At 1,000,000 companies, with the table shipped and the default 3 candidates, as the bench's
 * evaluation asks (docs/names-calibration-1m.svg):
 *
 *   npx tsx bench/names-scale.ts fit-dump --fit-seeds 1 --candidates 3
 *   npx tsx bench/names-report.ts --dump .local/names-scale/fit-1.json --svg docs/names-calibration-1m.svg
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import type { LabelledRecord } from './name-variants.js';
import { calibrationSvg, type EvaluatedResult, outcomeMarkdown, outcomeReport } from './names/outcomes.js';

interface Dumped {
  entry: LabelledRecord;
  result: EvaluatedResult;
}

const { values } = parseArgs({
  options: { dump: { type: 'string', multiple: true }, svg: { type: 'string' } },
});
if (!values.dump?.length) throw new Error('--dump <file> is required (one or more)');
const dumped = values.dump.flatMap((file) => JSON.parse(readFileSync(file, 'utf8')) as Dumped[]);
const report = outcomeReport(
  dumped.map((d) => d.entry),
  dumped.map((d) => d.result),
);
const seeds = values.dump.map((file) => path.basename(file)).join(', ');
console.log(`${dumped.length} records (${seeds}); calibration error ${report.calibrationError}\n`);
console.log(outcomeMarkdown(report, values.svg ? path.basename(values.svg) : undefined));
if (values.svg) {
  writeFileSync(values.svg, calibrationSvg(report.calibration, `${dumped.length} records, seeds not fitted`));
  console.log(`wrote ${values.svg}`);
}
