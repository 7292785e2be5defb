/**
 * `npm run ledger -- <command>`: the credit ledger (docs/credits.md, "The ledger") against the
 * balances, in the stores the API uses under the same environment (Redis at REDIS_URL, else
 * the single-process file; OpenSearch at OPENSEARCH_URL, else the local node).
 *
 *   npm run ledger -- file      # file the entries waiting in the tail now
 *   npm run ledger -- verify    # every balance against the ledger; exit 1 on a difference
 *   npm run ledger -- rebuild   # every balance from the ledger (after Redis lost its data)
 *   npm run ledger -- open      # opening entries for balances older than the ledger (once)
 *   npm run ledger -- show alice [--from 2026-11-01] [--to 2026-11-30]
 *                               # the user's entries, oldest first, with the balance after each
 */
import { openCliServices } from '../indexer/cli-services.js';
import { cliProgram, exitCodesHelp, runCli } from '../ops/cli.js';
import { loadConfigOrExit } from '../src/config.js';
import {
  balanceHistory,
  type LedgerContext,
  openBalances,
  rebuildBalances,
  verifyLedger,
} from '../src/limits/ledger-audit.js';
import { fileLedgerTail, ledgerIndex } from '../src/limits/ledger-filing.js';
import { openCreditLedger } from '../src/limits/open-credit-ledger.js';

const say = (line: string): void => {
  process.stdout.write(`${line}\n`);
};

async function withLedger(work: (ctx: LedgerContext) => Promise<void>): Promise<void> {
  const services = await openCliServices();
  const { ledger, close } = openCreditLedger(loadConfigOrExit());
  try {
    await work({ ledger, opensearch: services.opensearch, index: ledgerIndex(services.indexPrefix) });
  } finally {
    await close();
    await services.close();
  }
}

const program = cliProgram(
  'ledger',
  'The credit ledger: every grant and charge, filed in OpenSearch. Check the balances against it, ' +
    'rebuild them from it, or open it for balances older than it.',
);

program
  .command('file')
  .description('file the entries waiting in the tail (the worker does this every LEDGER_FILING_INTERVAL_MS)')
  .action(() =>
    runCli('ledger file', () =>
      withLedger(async (ctx) => {
        say(`filed ${await fileLedgerTail(ctx.ledger, ctx.opensearch, ctx.index)} entries`);
      }),
    ),
  );

program
  .command('verify')
  .description(
    'every balance against the ledger: balance + open reservations = sum of entries; exit 1 on a difference',
  )
  .action(() =>
    runCli('ledger verify', () =>
      withLedger(async (ctx) => {
        const { users, differences } = await verifyLedger(ctx);
        for (const d of differences)
          say(
            `${d.userId}: balance ${d.balance}, ledger says ${d.expected}` +
              (d.unledgered ? ' (no entry: run `npm run ledger -- open` once)' : ''),
          );
        say(`${users} users checked, ${differences.length} differ`);
        if (differences.length > 0) process.exitCode = 1;
      }),
    ),
  );

program
  .command('rebuild')
  .description(
    'set every balance from the ledger (a Redis that lost its data); run before the API takes traffic',
  )
  .action(() =>
    runCli('ledger rebuild', () =>
      withLedger(async (ctx) => {
        const { restored, unledgered } = await rebuildBalances(ctx);
        for (const r of restored) if (r.before !== r.after) say(`${r.userId}: ${r.before} -> ${r.after}`);
        say(
          `${restored.length} balances set from the ledger (${restored.filter((r) => r.before !== r.after).length} changed)`,
        );
        if (unledgered.length > 0)
          say(
            `${unledgered.length} users have a balance and no entry, left as they are: ${unledgered.join(', ')}`,
          );
      }),
    ),
  );

program
  .command('open')
  .description('once per user: an opening entry for what a balance older than the ledger holds')
  .action(() =>
    runCli('ledger open', () =>
      withLedger(async (ctx) => {
        const opened = await openBalances(ctx);
        for (const o of opened) say(`${o.userId}: opening entry of ${o.credits} credits`);
        say(`${opened.length} opening entries written`);
      }),
    ),
  );

program
  .command('show')
  .description("a user's entries, oldest first, each with the balance after it, and the balance now")
  .argument('<userId>', 'the user')
  .option('--from <day>', 'first day, YYYY-MM-DD (Japan time)')
  .option('--to <day>', 'last day, YYYY-MM-DD (Japan time), included')
  .action((userId: string, options: { from?: string; to?: string }) =>
    runCli('ledger show', () =>
      withLedger(async (ctx) => {
        await fileLedgerTail(ctx.ledger, ctx.opensearch, ctx.index);
        const history = await balanceHistory(ctx, userId, options);
        for (const row of history.rows)
          say(
            [
              row.entry.at,
              row.entry.kind.padEnd(7),
              String(row.entry.credits).padStart(8),
              `-> ${row.balance}`.padEnd(14),
              row.entry.operation ?? '',
              row.entry.requestId ?? row.entry.matchJobId ?? '',
              row.entry.rows === undefined ? '' : `${row.entry.rows} rows`,
            ]
              .join('  ')
              .trimEnd(),
          );
        say(
          `${history.rows.length} entries; ledger balance ${history.ledgerBalance}, open reservations ${history.open}, store balance ${history.storeBalance}${
            history.ledgerBalance - history.open === history.storeBalance
              ? ' (they agree)'
              : ' (they DIFFER: npm run ledger -- verify)'
          }`,
        );
      }),
    ),
  );

for (const command of program.commands) command.addHelpText('after', exitCodesHelp);
program.parse();
