/**
 * One seed for every fast-check property of a run (./fc-seed.ts: FC_SEED, else fresh per run),
 * printed by the global setup and again in a failure, with the command that replays it:
 *   FC_SEED=<seed> FC_PATH=<path> npx vitest run test/search/property-search.test.ts
 * FC_PATH (the counterexample's path in the failure) replays that one shrunk case first.
 */
import fc from 'fast-check';
import { expect, inject } from 'vitest';
import { runPath } from './fc-seed.js';

/** The run's seed (from the global setup). */
export const fcSeed: number = inject('fcSeed');

/** The command that replays a failure of this file. */
export function replayHint(seed: number, path?: string): string {
  const file = expect.getState().testPath?.replace(/^.*?(?=test\/)/, '') ?? '<test file>';
  return `replay: FC_SEED=${seed}${path ? ` FC_PATH=${path}` : ''} npx vitest run ${file}`;
}

/** fast-check parameters: the run's seed, `numRuns`, FC_PATH, and a failure that says how to replay it. */
export function propertyParams(numRuns: number): fc.Parameters<unknown> {
  const path = runPath(process.env.FC_PATH);
  return {
    seed: fcSeed,
    numRuns,
    ...(path ? { path, endOnFailure: true } : {}),
    reporter: (out) => {
      if (!out.failed) return;
      const message = fc.defaultReportMessage(out) ?? 'property failed';
      throw new Error(`${message}\n\n${replayHint(out.seed, out.counterexamplePath ?? undefined)}`, {
        cause: out.errorInstance,
      });
    },
  };
}
