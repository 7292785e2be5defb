/**
 * `npm run generate:invoices -- --companies 1000000 --out .local/invoices [--encoding sjis] [--zip]`
 * writes the invoice registrations of the seeded register `generate:registry` writes with the
 * same --companies, --seed and --date (../invoice/generate-files.ts): the full file, and with
 * `--diff <date>` a day's diff of `--changes` rows. Same seed, size and dates: the same bytes.
 */
import { Option } from 'commander';
import { calendarDay, cliProgram, positiveWholeNumber, runCli, wholeNumber } from '../../ops/cli.js';
import { writeInvoiceDiffFile, writeInvoiceFullFile } from '../invoice/generate-files.js';

const program = cliProgram(
  'generate:invoices',
  "Write the invoice registrations of a seeded register (generate:registry's, same --companies, " +
    "--seed and --date) in the NTA's invoice-issuer download format: the full file, or with --diff a daily diff",
)
  .option('--companies <n>', 'companies in the register', positiveWholeNumber, 10_000)
  .option('--seed <n>', 'random seed (same seed, size and dates: same bytes)', wholeNumber, 1)
  .option('--date <date>', "the full file's date", calendarDay, '2026-10-31')
  .option('--out <dir>', 'output folder', '.local/invoices')
  .addOption(new Option('--encoding <name>', 'file encoding').choices(['utf8', 'sjis']).default('utf8'))
  .option(
    '--split <rows>',
    'at most this many rows per file, in numbered parts (0: no split)',
    wholeNumber,
    0,
  )
  .option('--zip', 'wrap each CSV in a zip of the same name, as the downloads come')
  .option('--diff <date>', 'write only the diff of this day (after --date)', calendarDay)
  .option('--changes <n>', 'rows in the diff', positiveWholeNumber, 1000)
  .parse();

const options = program.opts<{
  companies: number;
  seed: number;
  date: string;
  out: string;
  encoding: 'utf8' | 'sjis';
  split: number;
  zip?: boolean;
  diff?: string;
  changes: number;
}>();

runCli('generate:invoices', async () => {
  const universe = { companies: options.companies, seed: options.seed, date: options.date };
  const layout = {
    outDir: options.out,
    encoding: options.encoding,
    split: options.split,
    zip: options.zip ?? false,
    nationwide: true,
  };
  const started = Date.now();
  if (options.diff) {
    if (options.diff <= options.date) program.error('--diff must be a day after --date');
    const { files, counts } = await writeInvoiceDiffFile(universe, options.diff, options.changes, layout);
    for (const file of files) console.log(`${file.file}: ${file.rows} rows`);
    console.log(`changes: ${JSON.stringify(counts)}`);
  } else {
    for (const file of await writeInvoiceFullFile(universe, layout))
      console.log(`${file.file}: ${file.rows} rows`);
  }
  console.log(`in ${((Date.now() - started) / 1000).toFixed(1)} s`);
});
