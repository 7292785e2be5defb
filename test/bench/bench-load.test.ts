/**
 * The bench's load runner refuses to report a run whose answers are mostly refusals: non-2xx
 * answers are counted apart from the latency samples, and above 0.1 % of all answers the run
 * throws, naming the statuses (bench/load.ts).
 */
import { describe, expect, it } from 'vitest';
import { failOnRefusals, MAX_NON_2XX_SHARE, summarize } from '../../bench/load.js';

describe('failOnRefusals', () => {
  it('passes a run within the bound (1 refusal in 1,000 answers)', () => {
    expect(() => failOnRefusals({ '200': 999, '503': 1 }, 1, MAX_NON_2XX_SHARE)).not.toThrow();
  });

  it('throws above the bound, naming the counts and the statuses', () => {
    expect(() => failOnRefusals({ '200': 998, '503': 2 }, 2, MAX_NON_2XX_SHARE)).toThrow(
      /2 of 1000 answers were not 2xx .*"503":2/,
    );
  });

  it('throws for a run of fast refusals that would have passed for fast searches', () => {
    expect(() => failOnRefusals({ '200': 200, '503': 40_623 }, 40_623, MAX_NON_2XX_SHARE)).toThrow(
      /40623 of 40823/,
    );
  });

  it('the bound is 0.1 %', () => {
    expect(MAX_NON_2XX_SHARE).toBe(0.001);
  });
});

describe('summarize', () => {
  it('nearest-rank percentiles over the samples given', () => {
    const samples = Array.from({ length: 100 }, (_, i) => i + 1);
    expect(summarize(samples)).toEqual({ p50: 50, p95: 95, p99: 99, mean: 50.5, max: 100 });
  });
});
