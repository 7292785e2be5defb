/**
 * What every command-line tool shares: commander with `--help` that runs nothing, the same
 * exit codes, and failures reported as one line on stderr (no stack trace).
 *
 *   0  done
 *   1  failed: bad arguments or settings, a server that cannot be reached, an error while working
 *   2  `ingest`, `import:registry` and `dead-letters replay` only: finished, but some records were
 *      rejected (see the dead-letter file or list)
 */
import { readFileSync } from 'node:fs';
import { Command, InvalidArgumentError } from 'commander';

export const exitCodesHelp = `
Exit codes: 0 done; 1 failed (bad arguments or settings, a server not reachable, an error
while working); 2 (ingest, import:registry, import:invoices, import:gbizinfo, dead-letters replay)
finished with rejected records.`;

/** A commander program with the shared help footer; errors show the usage hint. */
export function cliProgram(name: string, description: string): Command {
  return new Command(name).description(description).showHelpAfterError().addHelpText('after', exitCodesHelp);
}

function wholeNumberAtLeast(min: number, refusal: string): (value: string) => number {
  return (value) => {
    const parsed = Number(value);
    if (!Number.isInteger(parsed) || parsed < min) throw new InvalidArgumentError(refusal);
    return parsed;
  };
}

/**
 * commander option parsers for counts; a bad value stops the CLI before it does anything,
 * with the option named: `error: option '--batch-size <n>' argument '0' is invalid. must be a
 * positive whole number`.
 *
 *   program.option('--batch-size <n>', 'records per _bulk round', positiveWholeNumber, 1000)
 */
export const positiveWholeNumber = wholeNumberAtLeast(1, 'must be a positive whole number');
/** As `positiveWholeNumber`, 0 included (a seed, a count that may be none). */
export const wholeNumber = wholeNumberAtLeast(0, 'must be a whole number');

/** A calendar day written YYYY-MM-DD (2026-02-30 is refused), for the generators' dates. */
export function calendarDay(value: string): string {
  const day = new Date(`${value}T00:00:00Z`);
  if (
    !/^\d{4}-\d{2}-\d{2}$/.test(value) ||
    Number.isNaN(day.getTime()) ||
    !day.toISOString().startsWith(value)
  )
    throw new InvalidArgumentError('must be a date YYYY-MM-DD');
  return value;
}

/** Runs a CLI's work; an error becomes `<name>: <message>` on stderr and exit code 1. */
export function runCli(name: string, work: () => Promise<void>): void {
  work().catch((error: unknown) => {
    process.stderr.write(`${name}: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  });
}

/**
 * The API key of a tool that calls the API, from API_KEY_FILE (a file holding it, e.g.
 * .local/alice.key, as the README makes one) or an exported API_KEY: never a command-line
 * option, which `ps` and the shell history would show.
 */
export function apiKeyFromEnvironment(): string {
  const file = process.env.API_KEY_FILE;
  if (file) {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      throw new Error(`API_KEY_FILE ${file} cannot be read`);
    }
    const key = text.split(/\r?\n/)[0]?.trim();
    if (!key) throw new Error(`API_KEY_FILE ${file} is empty`);
    return key;
  }
  const key = process.env.API_KEY?.trim();
  if (!key)
    throw new Error(
      'an API key is needed: API_KEY_FILE=<file holding it> (e.g. .local/alice.key) or an exported API_KEY',
    );
  return key;
}
