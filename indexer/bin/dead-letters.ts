/**
 * `npm run dead-letters -- list | show <id> | replay <id...> | replay --all [--dry-run]`:
 * the records the indexer refused, with every reason, and their replay once the cause is
 * fixed (a master list loaded, the company ingested, OpenSearch back). The store is the
 * worker's Redis list with REDIS_URL, else the newest `.local/dead-letter/ingest-*.ndjson`;
 * `--file` names another file. The commands: ../dead-letter-commands.ts.
 */
import { cliProgram, exitCodesHelp, positiveWholeNumber, runCli } from '../../ops/cli.js';
import { loadConfigOrExit } from '../../src/config.js';
import {
  listDeadLetters,
  type ReplayOptions,
  replayDeadLetters,
  showDeadLetter,
} from '../dead-letter-commands.js';

const print = (line: string) => console.log(line);

async function run(command: Promise<number>): Promise<void> {
  process.exitCode = await command;
}

const program = cliProgram(
  'dead-letters',
  'List, show and replay the records the indexer refused, with every reason. Store: the Redis list ' +
    '<REDIS_PREFIX>indexer:dead-letter with REDIS_URL, else the newest .local/dead-letter/ingest-*.ndjson, or --file.',
);
const fileOption = [
  '--file <file>',
  'a dead-letter file of `ingest` (default: the Redis list with REDIS_URL, else the newest .local/dead-letter/ingest-*.ndjson)',
] as const;
program
  .command('list')
  .addHelpText('after', exitCodesHelp)
  .description('counts per reason, then one line per entry: id, time, type, key, source, first reason')
  .option(...fileOption)
  .option('--limit <n>', 'entries to list (the counts cover all)', positiveWholeNumber, 50)
  .action((options: { file?: string; limit: number }) =>
    runCli('dead-letters', () => run(listDeadLetters(loadConfigOrExit(), options, print))),
  );
program
  .command('show <id>')
  .addHelpText('after', exitCodesHelp)
  .description('one entry with every reason and its record (an id from `list`, or its first digits)')
  .option(...fileOption)
  .action((id: string, options: { file?: string }) =>
    runCli('dead-letters', () => run(showDeadLetter(loadConfigOrExit(), id, options, print))),
  );
program
  .command('replay [ids...]')
  .addHelpText('after', exitCodesHelp)
  .description(
    'ingest the records again (through the queue with REDIS_URL, else directly); an accepted one leaves the ' +
      'store, a refused one stays with its new reasons',
  )
  .option('--all', 'every entry of the store')
  .option('--dry-run', 'list what would be replayed, change nothing')
  .option(...fileOption)
  .option('--timeout <seconds>', 'with REDIS_URL: how long to wait for the worker', positiveWholeNumber, 120)
  .action((ids: string[], options: ReplayOptions) =>
    runCli('dead-letters', () => run(replayDeadLetters(loadConfigOrExit(), ids, options, print))),
  );
program.parse();
