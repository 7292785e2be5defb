/**
 * `npm run generate:registry -- --companies 1000000 --out .local/registry [--encoding sjis] [--zip]`
 * writes a seeded register in the NTA's published format (../registry/generate-files.ts): full files per
 * prefecture (or `--nationwide`), and with `--diff <date>` a day's diff of `--changes` changes
 * to the same register. Same seed, size and dates: the same bytes.
 */
import { Option } from 'commander';
import { calendarDay, cliProgram, positiveWholeNumber, runCli, wholeNumber } from '../../ops/cli.js';
import { writeDiffFile, writeFullFiles } from '../registry/generate-files.js';

const program = cliProgram(
  'generate:registry',
  "Write a seeded register in the NTA's corporate-number download format: full files per " +
    'prefecture (or one nationwide file), and with --diff a daily diff to the same register',
)
  .option('--companies <n>', 'companies in the register (the full files)', positiveWholeNumber, 10_000)
  .option('--seed <n>', 'random seed (same seed, size and dates: same bytes)', wholeNumber, 1)
  .option('--date <date>', "the full files' date", calendarDay, '2026-10-31')
  .option('--out <dir>', 'output folder', '.local/registry')
  .addOption(new Option('--encoding <name>', 'file encoding').choices(['utf8', 'sjis']).default('utf8'))
  .option(
    '--split <rows>',
    'at most this many rows per file, in numbered parts (0: no split)',
    wholeNumber,
    0,
  )
  .option('--zip', 'wrap each CSV in a zip of the same name, as the downloads come')
  .option('--nationwide', 'one nationwide full file (00_zenkoku_all_…) instead of one per prefecture')
  .option(
    '--diff <date>',
    'write only the diff of this day (after --date) to the register of --companies',
    calendarDay,
  )
  .option('--changes <n>', 'changes in the diff (a rename or move is two rows)', positiveWholeNumber, 3000)
  .parse();

const options = program.opts<{
  companies: number;
  seed: number;
  date: string;
  out: string;
  encoding: 'utf8' | 'sjis';
  split: number;
  zip?: boolean;
  nationwide?: boolean;
  diff?: string;
  changes: number;
}>();

runCli('generate:registry', async () => {
  const universe = { companies: options.companies, seed: options.seed, date: options.date };
  const layout = {
    outDir: options.out,
    encoding: options.encoding,
    split: options.split,
    zip: options.zip ?? false,
    nationwide: options.nationwide ?? false,
  };
  const started = Date.now();
  if (options.diff) {
    if (options.diff <= options.date) program.error('--diff must be a day after --date');
    const { files, counts } = await writeDiffFile(universe, options.diff, options.changes, layout);
    for (const file of files) console.log(`${file.file}: ${file.rows} rows`);
    console.log(`changes: ${JSON.stringify(counts)}`);
  } else {
    let rows = 0;
    await writeFullFiles(universe, layout, (file) => {
      rows += file.rows;
      console.log(`${file.file}: ${file.rows} rows`);
    });
    console.log(`${rows} rows for ${options.companies} companies`);
  }
  console.log(`in ${((Date.now() - started) / 1000).toFixed(1)} s`);
});
