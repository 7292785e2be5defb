/**
 * The fast-check seed of a test run: FC_SEED when set (to replay a failure), else a fresh one
 * per run. Drawn once by the global setup (./global-setup.ts), printed, and handed to every
 * test file (`inject('fcSeed')`), so one run is one seed across all files and workers.
 */
import { randomInt } from 'node:crypto';

export function runSeed(fromEnv: string | undefined): number {
  if (fromEnv === undefined || fromEnv === '') return randomInt(2 ** 31 - 1);
  if (!/^-?\d+$/.test(fromEnv) || !Number.isSafeInteger(Number(fromEnv)))
    throw new Error(`FC_SEED must be an integer, got "${fromEnv}"`);
  return Number(fromEnv);
}

/** FC_PATH: the counterexample path a failure printed, to replay that one case at once. */
export function runPath(fromEnv: string | undefined): string | undefined {
  if (fromEnv === undefined || fromEnv === '') return undefined;
  if (!/^\d+(:\d+)*$/.test(fromEnv)) throw new Error(`FC_PATH must look like 12:0:3, got "${fromEnv}"`);
  return fromEnv;
}
