/**
 * What the file importers' commands share (`import:registry`, `import:invoices`,
 * `import:gbizinfo`): the files argument and the options (encoding, batch size, restart, state
 * directory, dead-letter file), checked before anything starts, and one progress bar per file
 * (per zip entry).
 *
 *   const { files, options } = fileImportCommand('import:invoices', 'Load ...', 'invoice');
 *   const progress = fileProgressBar();
 *   await importInvoiceFiles(files, { ..., onProgress: progress.show });
 */
import { statSync } from 'node:fs';
import path from 'node:path';
import { SingleBar } from 'cli-progress';
import { type Command, Option } from 'commander';
import { cliProgram, positiveWholeNumber } from '../../ops/cli.js';
import { projectRoot } from '../../src/project-root.js';
import { connectRedis } from '../../src/redis.js';
import { Membership } from '../../src/saved-searches/membership.js';
import { watchedSearchCounts } from '../../src/saved-searches/watch.js';
import type { CliServices } from '../cli-services.js';
import type { ImportProgress, ImportSummary, SourceResult } from '../registry/checkpointed-import.js';

export interface FileImportOptions {
  encoding: 'auto' | 'utf8' | 'sjis';
  batchSize: number;
  restart?: boolean;
  stateDir: string;
  deadLetter: string;
}

/** Parses the command line; exits with a usage error for a file that cannot be read. */
export function fileImportCommand(
  name: string,
  description: string,
  /** names the default state directory (`.local/<stem>-import`) and dead-letter file */
  stem: string,
  /** options of this command's own, added before the common ones */
  extra: (program: Command) => void = () => {},
): { files: string[]; options: FileImportOptions & Record<string, unknown> } {
  const program = cliProgram(name, description);
  extra(program);
  program
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
    .option(
      '--batch-size <n>',
      'records (import:gbizinfo: companies) per write and per checkpoint',
      positiveWholeNumber,
      1000,
    )
    .option(
      '--restart',
      'ignore the checkpoints: read every file from its start (loading again writes nothing new)',
    )
    .option(
      '--state-dir <dir>',
      'where the per-file checkpoints live',
      path.join(projectRoot, '.local', `${stem}-import`),
    )
    .option(
      '--dead-letter <file>',
      'where rejected rows go, with every reason',
      path.join(
        projectRoot,
        '.local',
        'dead-letter',
        `${stem}-${new Date().toISOString().replace(/[:.]/g, '-')}.ndjson`,
      ),
    )
    .parse();
  const files = program.args;
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
  return { files, options: program.opts<FileImportOptions & Record<string, unknown>>() };
}

export function fileProgressBar(): { show: (progress: ImportProgress) => void; stop: () => void } {
  const bar = new SingleBar({
    format:
      '{file} [{bar}] {percentage}% | {records} records | {speed} records/s | ETA {eta_formatted} | {duration_formatted}',
    hideCursor: true,
  });
  let current = '';
  let started = Date.now();
  const show = (progress: ImportProgress) => {
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
  return { show, stop: () => bar.stop() };
}

/**
 * Prints a run's table (a row per file) and its totals line, points at the dead letters, and
 * sets the exit code: 2 when rows were rejected, else 0.
 */
export function reportFileResults(
  files: SourceResult[],
  total: ImportSummary,
  totals: string,
  deadLetterLocation: string,
): void {
  console.table(
    files.map((file) => ({
      file: path.basename(file.file),
      encoding: file.encoding,
      ...(file.alreadyLoaded ? { note: 'loaded before (--restart to read it again)' } : {}),
      ...(file.resumedAfter > 0 && !file.alreadyLoaded ? { resumedAfter: file.resumedAfter } : {}),
      ...file.summary,
    })),
  );
  console.log(totals);
  if (total.rejected > 0)
    console.log(`${total.rejected} rejected rows with their reasons: ${deadLetterLocation}`);
  process.exitCode = total.rejected > 0 ? 2 : 0;
}

/**
 * The saved searches' membership for a public-record import (../record-rebuild.ts): with
 * REDIS_URL set, the companies it writes are reported to the watched saved searches, and a
 * Redis that does not answer stops the command before it writes (its changes could not be
 * recorded); without REDIS_URL they are not reported, and the command says so when a search
 * is watched.
 */
export async function importWatch(
  services: CliServices,
): Promise<{ watch?: Membership; close: () => Promise<void> }> {
  const counts = await watchedSearchCounts(services.opensearch, services.indexPrefix);
  const watched = counts.corporates + counts.jobs;
  if (!services.redisUrl) {
    if (watched > 0)
      console.error(
        `${watched} saved searches are watched, and REDIS_URL is not set: the companies this import changes are not reported to them now (set REDIS_URL to the API's Redis to report them)`,
      );
    return { close: async () => {} };
  }
  const redis = connectRedis(services.redisUrl, {
    lazyConnect: true,
    connectTimeout: 2000,
    maxRetriesPerRequest: 2,
  });
  // one line, not one per reconnection attempt: the command's own error says what failed
  redis.on('error', () => {});
  const close = async () => {
    await redis.quit().catch(() => redis.disconnect());
  };
  try {
    await redis.connect();
    await redis.ping();
  } catch {
    redis.disconnect();
    throw new Error(
      "REDIS_URL is set but Redis does not answer: the saved searches' changes could not be recorded (unset REDIS_URL to import without reporting them)",
    );
  }
  return { watch: new Membership(redis, services.redisPrefix), close };
}
