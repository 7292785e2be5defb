/**
 * The property tests' seed (test/support/fc-seed.ts, test/support/fast-check.ts): one per run,
 * from FC_SEED when set; a failure names the seed and the counterexample path, and that pair
 * replays the same shrunk counterexample.
 */
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { fcSeed, propertyParams } from './support/fast-check.js';
import { runPath, runSeed } from './support/fc-seed.js';

/** A property that fails for every number from 1000 up (shrinks to 1000). */
const failing = fc.property(fc.nat(), (n) => n < 1000);

function failureOf(run: () => void): string {
  try {
    run();
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error('the property did not fail');
}

afterEach(() => {
  delete process.env.FC_PATH;
});

describe('FC_SEED and FC_PATH', () => {
  it('FC_SEED is taken as given; unset or empty draws a seed; anything else is refused', () => {
    expect(runSeed('42')).toBe(42);
    expect(runSeed('-7')).toBe(-7);
    const drawn = runSeed(undefined);
    expect(Number.isSafeInteger(drawn) && drawn >= 0).toBe(true);
    expect(Number.isSafeInteger(runSeed(''))).toBe(true);
    expect(() => runSeed('4x2')).toThrow('FC_SEED must be an integer, got "4x2"');
    expect(() => runSeed('1e3')).toThrow('FC_SEED must be an integer');
    expect(runPath('12:0:3')).toBe('12:0:3');
    expect(runPath(undefined)).toBeUndefined();
    expect(() => runPath('12;0')).toThrow('FC_PATH must look like 12:0:3');
  });

  it('every property of the run uses the seed the global setup drew', () => {
    expect(propertyParams(10)).toMatchObject({ seed: fcSeed, numRuns: 10 });
    if (process.env.FC_SEED) expect(fcSeed).toBe(Number(process.env.FC_SEED));
  });
});

describe('a failing property', () => {
  it('says how to replay it: the seed, the path, the file', () => {
    const message = failureOf(() => fc.assert(failing, { ...propertyParams(200), seed: 1234 }));
    expect(message).toContain('Counterexample: [1000]');
    expect(message).toMatch(
      /replay: FC_SEED=1234 FC_PATH=\d+(:\d+)* npx vitest run test\/fast-check-seed\.test\.ts/,
    );
  });

  it('FC_PATH replays the shrunk counterexample at once', () => {
    const first = failureOf(() => fc.assert(failing, { ...propertyParams(200), seed: 99 }));
    const path = /FC_PATH=(\S+)/.exec(first)?.[1] as string;
    process.env.FC_PATH = path;
    let tried = 0;
    const replay = failureOf(() =>
      fc.assert(
        fc.property(fc.nat(), (n) => {
          tried += 1;
          return n < 1000;
        }),
        { ...propertyParams(200), seed: 99 },
      ),
    );
    expect(replay).toContain('Counterexample: [1000]');
    expect(tried).toBe(1);
  });
});
