/**
 * `npm run keys -- <command>`: API keys and credit balances, in the store the API server uses
 * under the same environment (Redis at REDIS_URL under REDIS_PREFIX, else the files under
 * .local/ of single-process mode).
 *
 *   npm run keys -- create alice --expires 2027-12-31 --credits 1000 > .local/alice.key
 *   npm run keys -- list [alice]
 *   npm run keys -- revoke key_9f2c41d07a3b
 *   npm run keys -- credits alice [--grant 500]
 *   npm run keys -- export > keys.jsonl; REDIS_URL=<new> npm run keys -- import keys.jsonl
 *
 * `create` prints the key alone on stdout, once, so it can go straight into a file or a
 * variable; everything else goes to stderr. The key is never stored, only its SHA-256.
 */
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { type Command, InvalidArgumentError } from 'commander';
import { cliProgram, exitCodesHelp } from '../ops/cli.js';
import { createApiKey, keyStoreFor } from '../src/auth/key-admin.js';
import { type ApiKeyRecord, keyState } from '../src/auth/key-store.js';
import { loadConfigOrExit } from '../src/config.js';
import { openCreditLedger } from '../src/limits/open-credit-ledger.js';
import { GrantNotReplicated } from '../src/limits/redis-credit-ledger.js';
import { createRedis } from '../src/redis.js';

const say = (line: string): void => {
  process.stderr.write(`${line}\n`);
};

function parseUserId(value: string): string {
  if (!/^[A-Za-z0-9._@-]{1,128}$/.test(value))
    throw new InvalidArgumentError('a user id is 1-128 characters of A-Z a-z 0-9 . _ @ -');
  return value;
}

function parseExpiry(value: string): Date {
  // a bare date means the end of that day in UTC: "valid through 2027-12-31"
  const date = new Date(/^\d{4}-\d{2}-\d{2}$/.test(value) ? `${value}T23:59:59.999Z` : value);
  if (Number.isNaN(date.getTime()))
    throw new InvalidArgumentError('give a date YYYY-MM-DD or an ISO date-time');
  if (date.getTime() <= Date.now()) throw new InvalidArgumentError('--expires is in the past');
  return date;
}

function parseCredits(value: string): number {
  const amount = Number(value);
  if (value.trim() === '' || !Number.isSafeInteger(amount))
    throw new InvalidArgumentError('give a whole number');
  return amount;
}

/** A new key's starting credits: a grant, so never negative. */
function parseStartingCredits(value: string): number {
  const amount = parseCredits(value);
  if (amount < 0) throw new InvalidArgumentError('give a whole number of 0 or more');
  return amount;
}

function parseLabel(value: string): string {
  const control = [...value].some((char) => char.charCodeAt(0) < 0x20 || char.charCodeAt(0) === 0x7f);
  if (value.length > 200 || control)
    throw new InvalidArgumentError('a label is at most 200 characters, without control characters');
  return value;
}

/** Runs `work` with the key store of this environment, closing Redis after. */
async function withKeyStore<T>(work: (store: ReturnType<typeof keyStoreFor>) => Promise<T>): Promise<T> {
  const config = loadConfigOrExit();
  const redis = config.redisUrl ? createRedis(config.redisUrl) : undefined;
  redis?.on('error', () => {}); // a failing command reports it
  try {
    // commands are not queued while connecting (enableOfflineQueue: false)
    if (redis && redis.status !== 'ready') await once(redis, 'ready', { signal: AbortSignal.timeout(5000) });
    return await work(keyStoreFor(redis, config.redisPrefix, config.keysFile));
  } finally {
    await redis?.quit().catch(() => redis.disconnect());
  }
}

async function withLedger<T>(
  work: (ledger: ReturnType<typeof openCreditLedger>['ledger']) => Promise<T>,
): Promise<T> {
  const { ledger, close } = openCreditLedger(loadConfigOrExit());
  try {
    return await work(ledger);
  } finally {
    await close();
  }
}

const isoOrNull = (value: unknown) =>
  value === null || (typeof value === 'string' && !Number.isNaN(Date.parse(value)));

/** One line of `keys export`, checked field by field; the whole import stops at a bad one. */
function parseRecord(line: string, lineNumber: number): ApiKeyRecord {
  let value: Partial<Record<keyof ApiKeyRecord, unknown>>;
  try {
    value = JSON.parse(line) as typeof value;
  } catch {
    throw new Error(`line ${lineNumber}: not JSON`);
  }
  const problems = [
    typeof value.keyId === 'string' && /^key_[0-9a-f]{6,64}$/.test(value.keyId) ? '' : 'keyId',
    typeof value.userId === 'string' && /^[A-Za-z0-9._@-]{1,128}$/.test(value.userId) ? '' : 'userId',
    typeof value.keyHash === 'string' && /^[0-9a-f]{64}$/.test(value.keyHash) ? '' : 'keyHash',
    typeof value.createdAt === 'string' && isoOrNull(value.createdAt) ? '' : 'createdAt',
    isoOrNull(value.expiresAt) ? '' : 'expiresAt',
    isoOrNull(value.revokedAt) ? '' : 'revokedAt',
    value.label === null || typeof value.label === 'string' ? '' : 'label',
  ].filter(Boolean);
  if (problems.length > 0)
    throw new Error(
      `line ${lineNumber}: not a key record of keys export (${problems.join(', ')}); nothing imported`,
    );
  return value as ApiKeyRecord;
}

function describeKey(record: ApiKeyRecord, now: Date): string {
  return [
    record.keyId,
    `user=${record.userId}`,
    `state=${keyState(record, now)}`,
    `created=${record.createdAt}`,
    `expires=${record.expiresAt ?? 'never'}`,
    ...(record.revokedAt ? [`revoked=${record.revokedAt}`] : []),
    ...(record.label ? [`label=${JSON.stringify(record.label)}`] : []),
  ].join('  ');
}

/** `keys export` and `keys import`: the key records moved to another store. */
function addMoveCommands(program: Command): void {
  program
    .command('export')
    .description(
      'every key record (ids, owners, hashes, dates; never a key) as JSON lines on stdout, for a move',
    )
    .action(async () => {
      const records = await withKeyStore((store) => store.list());
      for (const record of records) process.stdout.write(`${JSON.stringify(record)}\n`);
      say(
        `exported ${records.length} key records (balances move with the credit ledger: npm run ledger -- rebuild)`,
      );
    });

  program
    .command('import')
    .description('add the key records of an export (a file, or - for stdin); records already there are left')
    .argument('<file>', 'a file written by `keys export`, or - for stdin')
    .action(async (file: string) => {
      const text = readFileSync(file === '-' ? 0 : file, 'utf8');
      const lines = text.split('\n').filter((line) => line.trim() !== '');
      const records = lines.map((line, i) => parseRecord(line, i + 1));
      const outcome = await withKeyStore(async (store) => {
        let added = 0;
        let kept = 0;
        for (const record of records) {
          if (await store.findByHash(record.keyHash)) kept += 1;
          else {
            await store.add(record);
            added += 1;
          }
        }
        return { added, kept };
      });
      say(`imported ${outcome.added} key records; ${outcome.kept} were there already`);
    });
}

/** A new key's credits; a key whose credits could not be granted is revoked. */
async function grantStartingCredits(userId: string, credits: number, keyId: string): Promise<void> {
  try {
    const balance = await withLedger((ledger) => ledger.grant(userId, credits));
    say(`credits of ${userId}: ${balance}`);
  } catch (error) {
    // granted on the primary, not yet on REDIS_WAIT_REPLICAS replicas: the key stands
    if (error instanceof GrantNotReplicated) {
      say(`warning: ${error.message}`);
      return;
    }
    await withKeyStore((store) => store.revoke(keyId, new Date()));
    throw new Error(`credits could not be granted (${(error as Error).message}); key ${keyId} revoked`);
  }
}

export function keysProgram(): Command {
  // help goes to stderr: stdout carries only a created key or a listing
  const program = cliProgram('keys', 'Manage API keys and credit balances').configureOutput({
    writeOut: (text) => process.stderr.write(text),
  });

  program
    .command('create')
    .description('create a key for a user; prints the key alone on stdout, once')
    .argument('<userId>', 'the user the key belongs to', parseUserId)
    .option('--expires <date>', 'expiry: YYYY-MM-DD (end of that day, UTC) or an ISO date-time', parseExpiry)
    .option('--credits <n>', "add n (0 or more) credits to the user's balance", parseStartingCredits)
    .option('--label <text>', 'a note for operators, e.g. "crm sync"', parseLabel)
    .action(async (userId: string, options: { expires?: Date; credits?: number; label?: string }) => {
      // every argument is checked by its parser before this runs; the ledger is reached
      // before the key is stored, and a key whose credits could not be granted is revoked
      if (options.credits !== undefined) await withLedger((ledger) => ledger.balance(userId));
      const { key, record } = await withKeyStore((store) =>
        createApiKey(store, { userId, expiresAt: options.expires, label: options.label }),
      );
      if (options.credits !== undefined) await grantStartingCredits(userId, options.credits, record.keyId);
      process.stdout.write(`${key}\n`);
      say(`created ${record.keyId} for user ${userId}, expires ${record.expiresAt ?? 'never'}`);
      say('the key above is shown this once; keep it out of logs, chat and documents');
    });

  program
    .command('list')
    .description('list keys (ids, owners, states; never the keys)')
    .argument('[userId]', 'only this user', parseUserId)
    .action(async (userId?: string) => {
      const records = await withKeyStore((store) => store.list(userId));
      const now = new Date();
      for (const record of records) process.stdout.write(`${describeKey(record, now)}\n`);
      if (records.length === 0) say('no keys');
    });

  program
    .command('revoke')
    .description('revoke a key by its id (see list); takes effect on the next request')
    .argument('<keyId>', 'e.g. key_9f2c41d07a3b')
    .action(async (keyId: string) => {
      const found = await withKeyStore((store) => store.revoke(keyId, new Date()));
      if (!found) {
        say(`no key ${keyId}`);
        process.exitCode = 1;
        return;
      }
      say(`revoked ${keyId}`);
    });

  program
    .command('credits')
    .description("show a user's credit balance, or change it with --grant")
    .argument('<userId>', 'the user', parseUserId)
    .option('--grant <n>', 'add n credits (negative takes credits back, not below 0)', parseCredits)
    .action(async (userId: string, options: { grant?: number }) => {
      const [balance, account] = await withLedger(async (ledger) => [
        options.grant === undefined
          ? await ledger.balance(userId)
          : await ledger.grant(userId, options.grant),
        await ledger.account(userId),
      ]);
      // stdout: the balance alone (for scripts); stderr: what is in flight and what was refunded
      process.stdout.write(`${balance}\n`);
      say(
        `open reservations: ${account.open.reservations} (${account.open.credits} credits: searches in flight, or left by a stopped API process and refunded automatically)`,
      );
      say(
        `refunded automatically: ${account.autoRefunded.reservations} orphaned reservations, ${account.autoRefunded.credits} credits`,
      );
      for (const refund of account.autoRefunded.recent)
        say(`  ${refund.at}  reservation ${refund.reservationId}  ${refund.cost} credit(s) refunded`);
    });

  addMoveCommands(program);

  for (const command of program.commands) command.addHelpText('after', exitCodesHelp);
  return program;
}

keysProgram()
  .parseAsync()
  .catch((error: Error) => {
    say(`error: ${error.message}`);
    process.exitCode = 1;
  });
