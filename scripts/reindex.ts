/**
 * `npm run reindex`: new versioned indices from mappings/, the data copied and caught up while
 * the API searches and the indexer writes, then the three aliases moved in one call
 * (ops/engine/reindex.ts). `--status` shows where the aliases point, `--drop-retired`
 * deletes the indices left behind, `--release` lifts the write block of a reindex that stopped
 * half-way.
 */
import { InvalidArgumentError } from 'commander';
import { openCliServices } from '../indexer/cli-services.js';
import { cliProgram, runCli } from '../ops/cli.js';
import { dropRetiredIndices, reindexAll, reindexStatus, releaseWriteBlocks } from '../ops/engine/reindex.js';

function positive(value: string): number {
  const parsed = Number(value);
  if (!Number.isFinite(parsed) || parsed <= 0) throw new InvalidArgumentError('must be a positive number');
  return parsed;
}

function suffix(value: string): string {
  if (!/^[0-9a-z]{1,32}$/.test(value))
    throw new InvalidArgumentError('must be 1-32 lower-case letters or digits');
  return value;
}

const program = cliProgram(
  'reindex',
  'Rebuild the three indices from mappings/ with no downtime: create new versioned indices, copy ' +
    'the documents, catch up with the writes made meanwhile, block writes for the last catch-up ' +
    '(writers wait and retry) and move the aliases in one atomic call. The old indices stay ' +
    '(read-only) until --drop-retired. OpenSearch: OPENSEARCH_URL, else the local node.',
)
  .option('--status', 'show where each alias points, its version and the retired indices; change nothing')
  .option(
    '--drop-retired',
    'delete the versioned indices no alias points at (after open cursors expired: 10 min)',
  )
  .option('--release', 'lift the write block a reindex stopped half-way left on the indices in use')
  .option(
    '--suffix <text>',
    'new index name <alias>-v<version>-<text> when -v<version> exists (default: UTC time)',
    suffix,
  )
  .option('--requests-per-second <n>', 'throttle the first copy to n documents per second', positive)
  .addHelpText(
    'after',
    `
Examples:
  npm run -s reindex -- --status
  npm run -s reindex                          # after raising "version" in a mappings/ file, or to rebuild as is
  npm run -s reindex -- --requests-per-second 5000
  npm run -s reindex -- --drop-retired        # once the new indices serve and cursors have expired`,
  )
  .parse();

const options = program.opts<{
  status?: boolean;
  dropRetired?: boolean;
  release?: boolean;
  suffix?: string;
  requestsPerSecond?: number;
}>();
const modes = [options.status, options.dropRetired, options.release].filter(Boolean).length;
if (modes > 1) program.error('--status, --drop-retired and --release go one at a time');

runCli('reindex', async () => {
  const services = await openCliServices();
  const client = services.opensearch;
  const prefix = services.indexPrefix;
  try {
    if (options.status) {
      for (const status of await reindexStatus(client, prefix)) {
        const behind =
          status.indexVersion !== undefined && status.indexVersion < status.mappingVersion
            ? ` (mappings/ has version ${status.mappingVersion}: run npm run reindex)`
            : '';
        console.log(
          `${status.alias} -> ${status.index ?? '(none)'}${behind}` +
            `${status.writeBlocked ? ' WRITE-BLOCKED' : ''}` +
            `${status.retired.length > 0 ? `; retired: ${status.retired.join(', ')}` : ''}`,
        );
      }
      return;
    }
    if (options.dropRetired) {
      const dropped = await dropRetiredIndices(client, prefix);
      console.log(dropped.length === 0 ? 'no retired indices' : `dropped ${dropped.join(', ')}`);
      return;
    }
    if (options.release) {
      const released = await releaseWriteBlocks(client, prefix);
      console.log(
        released.length === 0 ? 'no write block to lift' : `writes allowed again on ${released.join(', ')}`,
      );
      return;
    }
    const result = await reindexAll(client, prefix, {
      shape: services.index,
      ...(options.suffix ? { suffix: options.suffix } : {}),
      ...(options.requestsPerSecond ? { requestsPerSecond: options.requestsPerSecond } : {}),
      onProgress: (message) => process.stderr.write(`${message}\n`),
    });
    for (const move of result.moves)
      console.log(
        `${move.alias}: ${move.from} -> ${move.to}, ${move.count} documents ` +
          `(copied ${move.copied}, caught up ${move.caughtUp}, deleted ${move.deleted})`,
      );
    console.log(
      `done in ${(result.tookMs / 1000).toFixed(1)} s; writes waited ${(result.blockedMs / 1000).toFixed(1)} s; ` +
        `the old indices stay read-only until npm run reindex -- --drop-retired`,
    );
  } finally {
    await services.close();
  }
});
