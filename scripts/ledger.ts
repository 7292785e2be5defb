/**
 * `npm run ledger -- <command>`: the credit ledger (docs/credits.md, "The ledger") against the
 * balances, in the stores the API uses under the same environment (Redis at REDIS_URL, else
 * the single-process file; OpenSearch at OPENSEARCH_URL, else the local node).
 *
 *   npm run ledger -- file      # file the entries waiting in the tail now
 *   npm run ledger -- verify    # every balance against the ledger; exit 1 on a difference
 *   npm run ledger -- rebuild   # every balance from the ledger (after Redis lost its data)
 *   npm run ledger -- open      # opening entries for balances older than the ledger (once)
 */
import { openCliServices } from '../indexer/cli-services.js';
import { cliProgram, runCli } from '../ops/cli.js';
import { loadConfigOrExit } from '../src/config.js';
import {
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

program.parse();
