/**
 * One seed for every fast-check property of a run, printed, so a failure is replayed exactly:
 * FC_SEED=<seed> npx vitest run test/property-search.test.ts
 * Fixed by default (each run checks the same cases); a new FC_SEED explores others.
 */
const fromEnv = process.env.FC_SEED;
if (fromEnv !== undefined && !/^-?\d+$/.test(fromEnv))
  throw new Error(`FC_SEED must be an integer, got "${fromEnv}"`);

export const fcSeed = fromEnv === undefined ? 20_261_122 : Number(fromEnv);

/** fast-check parameters: the run's seed and `numRuns`. */
export function propertyParams(numRuns: number): { seed: number; numRuns: number } {
  console.log(`[fast-check] seed ${fcSeed}, ${numRuns} runs (replay: FC_SEED=${fcSeed})`);
  return { seed: fcSeed, numRuns };
}
