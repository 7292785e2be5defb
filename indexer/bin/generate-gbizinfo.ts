/**
 * `npm run generate:gbizinfo -- --companies 1000000 --out .local/gbizinfo [--encoding sjis]`
 * writes gBizINFO's files of every kind (subsidies, procurement, certifications, awards,
 * workplace figures) for the register `generate:registry` writes
 * with the same --companies, --seed and --date (../gbizinfo/generate.ts).
 */
import { mkdirSync } from 'node:fs';
import { Option } from 'commander';
import { calendarDay, cliProgram, positiveWholeNumber, runCli, wholeNumber } from '../../ops/cli.js';
import { recordKinds } from '../gbizinfo/format.js';
import { writeRecordFile } from '../gbizinfo/generate.js';

const program = cliProgram(
  'generate:gbizinfo',
  "Write gBizINFO files of every kind for a seeded register (generate:registry's, same " +
    '--companies, --seed and --date), in the download form',
)
  .option('--companies <n>', 'companies in the register', positiveWholeNumber, 10_000)
  .option('--seed <n>', 'random seed (same seed, size and date: same bytes)', wholeNumber, 1)
  .option('--date <date>', "the files' date (YYYY-MM-DD)", calendarDay, '2026-10-31')
  .option('--out <dir>', 'output folder', '.local/gbizinfo')
  .addOption(new Option('--encoding <name>', 'file encoding').choices(['utf8', 'sjis']).default('utf8'))
  .parse();

const options = program.opts<{
  companies: number;
  seed: number;
  date: string;
  out: string;
  encoding: 'utf8' | 'sjis';
}>();

runCli('generate:gbizinfo', async () => {
  mkdirSync(options.out, { recursive: true });
  const universe = { companies: options.companies, seed: options.seed, date: options.date };
  for (const kind of recordKinds) {
    const { file, rows } = writeRecordFile(kind, universe, options.out, options.encoding);
    console.log(`${file}: ${rows} rows`);
  }
});
