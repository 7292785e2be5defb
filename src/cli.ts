/**
 * What every command-line tool shares: commander with `--help` that runs nothing, the same
 * exit codes, and failures reported as one line on stderr (no stack trace).
 *
 *   0  done
 *   1  failed: bad arguments or settings, a server that cannot be reached, an error while working
 *   2  `ingest` only: finished, but some records were rejected (see the dead-letter file)
 */
import { Command } from 'commander';

export const exitCodesHelp = `
Exit codes: 0 done; 1 failed (bad arguments or settings, a server not reachable, an error
while working); 2 (ingest only) finished with rejected records.`;

/** A commander program with the shared help footer; errors show the usage hint. */
export function cliProgram(name: string, description: string): Command {
  return new Command(name).description(description).showHelpAfterError().addHelpText('after', exitCodesHelp);
}

/** Runs a CLI's work; an error becomes `<name>: <message>` on stderr and exit code 1. */
export function runCli(name: string, work: () => Promise<void>): void {
  work().catch((error: unknown) => {
    process.stderr.write(`${name}: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  });
}
