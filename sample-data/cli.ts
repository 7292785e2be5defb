/**
 * `npm run generate -- --companies 2000 --jobs 20000 --seed 42 --out .local/data`
 * Writes corporates.ndjson and jobs.ndjson (source records, schemas/) into --out.
 */
import { InvalidArgumentError } from 'commander';
import { cliProgram, wholeNumber } from '../ops/cli.js';
import { generateDataSet } from './generator.js';

function day(value: string): Date {
  const parsed = new Date(value);
  if (Number.isNaN(parsed.getTime())) throw new InvalidArgumentError('must be a date, e.g. 2026-11-21');
  return parsed;
}

function today(): Date {
  const now = new Date();
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
}

const program = cliProgram(
  'generate',
  'Write a seeded, deterministic sample data set as NDJSON source records',
)
  .option('--companies <n>', 'number of companies', wholeNumber, 2000)
  .option('--jobs <n>', 'number of postings', wholeNumber, 20000)
  .option('--seed <n>', 'random seed (same seed and --now: same bytes)', wholeNumber, 1)
  .option('--now <date>', "the data set's today (default: today, 00:00 UTC)", day)
  .option('--out <dir>', 'output folder', '.local/data')
  .parse();

const options = program.opts<{ companies: number; jobs: number; seed: number; now?: Date; out: string }>();
const started = Date.now();
const files = await generateDataSet({
  companies: options.companies,
  jobs: options.jobs,
  seed: options.seed,
  now: options.now ?? today(),
  outDir: options.out,
  onProgress: ({ companies, jobs }) => process.stderr.write(`\r${companies} companies, ${jobs} postings`),
});
process.stderr.write(
  `\nwrote ${files.corporates} and ${files.jobs} in ${((Date.now() - started) / 1000).toFixed(1)} s\n`,
);
