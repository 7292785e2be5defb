/**
 * `npm run import:registry -- <file...>`: NTA corporate-number files (full or diff; CSV, the
 * zips they are published in, or `-` for standard input) into the corporates index
 * (../registry/import.ts). Resumes each file (each zip entry) from its checkpoint; one loaded to its end is
 * skipped unless `--restart`.
 */
import { statSync } from 'node:fs';
import path from 'node:path';
import { SingleBar } from 'cli-progress';
import { Option } from 'commander';
import { cliProgram, positiveWholeNumber, runCli } from '../../ops/cli.js';
import { projectRoot } from '../../src/project-root.js';
import { openCliServices } from '../cli-services.js';
import { FileDeadLetter } from '../dead-letter.js';
import { importRegistryFiles, type RegistryProgress } from '../registry/import.js';

const program = cliProgram(
  'import:registry',
  "Load the NTA's corporate-number files (full files per prefecture, daily diffs; the zips as " +
    'downloaded, or the CSV inside) into the corporates index: only the fields the registry owns ' +
    'are written. Give a full file before its diffs. OpenSearch: OPENSEARCH_URL, else the local node.',
)
  .argument(
    '<files...>',
    'CSV or zip files (a zip: its CSV entries in name order), in the order to apply them; - reads ' +
      'standard input (not resumable)',
  )
  .addOption(
    new Option(
      '--encoding <name>',
      "the files' encoding; auto: UTF-8 when the start decodes as UTF-8, else Shift_JIS",
    )
      .choices(['auto', 'utf8', 'sjis'])
      .default('auto'),
  )
  .option('--batch-size <n>', 'records per write and per checkpoint', positiveWholeNumber, 1000)
  .option(
    '--restart',
    'ignore the checkpoints: read every file from its start (loading again writes nothing new)',
  )
  .option(
    '--state-dir <dir>',
    'where the per-file checkpoints live',
    path.join(projectRoot, '.local', 'registry-import'),
  )
  .option(
    '--dead-letter <file>',
    'where rejected rows go, with every reason',
    path.join(
      projectRoot,
      '.local',
      'dead-letter',
      `registry-${new Date().toISOString().replace(/[:.]/g, '-')}.ndjson`,
    ),
  )
  .parse();

const files = program.args;
const options = program.opts<{
  encoding: 'auto' | 'utf8' | 'sjis';
  batchSize: number;
  restart?: boolean;
  stateDir: string;
  deadLetter: string;
}>();
if (files.filter((file) => file === '-').length > 1) program.error('- (standard input) can be given once');
for (const file of files) {
  if (file === '-') continue;
  let isFile = false;
  try {
    isFile = statSync(file).isFile();
  } catch {
    program.error(`cannot read ${file}`);
  }
  if (!isFile) program.error(`${file} is not a file`);
}

runCli('import:registry', async () => {
  const services = await openCliServices();
  const bar = new SingleBar({
    format:
      '{file} [{bar}] {percentage}% | {records} records | {speed} records/s | ETA {eta_formatted} | {duration_formatted}',
    hideCursor: true,
  });
  let current = '';
  let started = Date.now();
  const showProgress = (progress: RegistryProgress) => {
    const file = path.basename(progress.file);
    if (file !== current) {
      if (current) bar.stop();
      current = file;
      started = Date.now();
      bar.start(progress.total, 0, { file, records: 0, speed: 0 });
    }
    const seconds = Math.max((Date.now() - started) / 1000, 0.001);
    bar.update(progress.done, { records: progress.records, speed: Math.round(progress.records / seconds) });
  };
  try {
    const deadLetter = new FileDeadLetter(options.deadLetter);
    const result = await importRegistryFiles(files, {
      client: services.opensearch,
      indexPrefix: services.indexPrefix,
      deadLetter,
      stateDir: options.stateDir,
      encoding: options.encoding,
      batchSize: options.batchSize,
      restart: options.restart ?? false,
      onProgress: showProgress,
    });
    bar.stop();
    console.table(
      result.files.map((file) => ({
        file: path.basename(file.file),
        encoding: file.encoding,
        ...(file.alreadyLoaded ? { note: 'loaded before (--restart to read it again)' } : {}),
        ...(file.resumedAfter > 0 && !file.alreadyLoaded ? { resumedAfter: file.resumedAfter } : {}),
        ...file.summary,
      })),
    );
    const { total } = result;
    console.log(
      `read ${total.read}, upserted ${total.upserted}, closed ${total.closed}, restored ${total.restored}, ` +
        `deleted ${total.deleted}, unchanged ${total.unchanged}, rejected ${total.rejected}`,
    );
    if (total.rejected > 0)
      console.log(`${total.rejected} rejected rows with their reasons: ${deadLetter.location}`);
    process.exitCode = total.rejected > 0 ? 2 : 0;
  } finally {
    bar.stop();
    await services.close();
  }
});
