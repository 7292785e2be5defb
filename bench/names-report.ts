/**
 * The matching evaluation's outcomes and calibration over one or more dumps of the evaluation
 * (test/names/names-evaluation.test.ts with NAMES_EVAL_DUMP, each with its NAMES_EVAL_SEED), as
 * markdown, and the reliability diagram as SVG: the figures docs/names.md publishes for seeds
 * the judge was not fitted to.
 *
 *   for seed in 3 5 19; do NAMES_EVAL_SEED=$seed NAMES_EVAL_DUMP=.local/names-dump-$seed.json \
 *     npx vitest run test/names/names-evaluation.test.ts; done
 *   npx tsx bench/names-report.ts --dump .local/names-dump-3.json --dump .local/names-dump-5.json \
 *     --dump .local/names-dump-19.json [--svg docs/names-calibration.svg]
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
