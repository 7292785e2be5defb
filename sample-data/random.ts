/**
 * A seeded random source (pure-rand's xoroshiro128+), so the same seed gives the same data set
 * byte for byte. Never Math.random here.
 */
import { uniformFloat64 } from 'pure-rand/distribution/uniformFloat64';
import { uniformInt } from 'pure-rand/distribution/uniformInt';
import { xoroshiro128plus } from 'pure-rand/generator/xoroshiro128plus';

type Generator = ReturnType<typeof xoroshiro128plus>;

export class Random {
  private readonly generator: Generator;

  constructor(seed: number) {
    this.generator = xoroshiro128plus(seed | 0);
  }

  /** Uniform integer in [from, to]. */
  int(from: number, to: number): number {
    return uniformInt(this.generator, from, to);
  }

  /** Uniform in [0, 1). */
  float(): number {
    return uniformFloat64(this.generator);
  }

  chance(probability: number): boolean {
    return this.float() < probability;
  }

  pick<T>(items: readonly T[]): T {
    return items[this.int(0, items.length - 1)] as T;
  }

  /** An item drawn by weight: `weighted([['a', 3], ['b', 1]])` gives 'a' three times as often. */
  weighted<T>(entries: ReadonlyArray<readonly [T, number]>): T {
    let total = 0;
    for (const [, weight] of entries) total += weight;
    let point = this.float() * total;
    for (const [item, weight] of entries) {
      point -= weight;
      if (point < 0) return item;
    }
    return entries[entries.length - 1]?.[0] as T;
  }

  /** Log-normal around `median`, e.g. head counts and salaries. */
  logNormal(median: number, sigma: number): number {
    // Box-Muller
    const u = Math.max(this.float(), Number.EPSILON);
    const v = this.float();
    const normal = Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
    return median * Math.exp(sigma * normal);
  }

  /** `count` distinct items. */
  sample<T>(items: readonly T[], count: number): T[] {
    const pool = [...items];
    const out: T[] = [];
    while (out.length < count && pool.length > 0)
      out.push(pool.splice(this.int(0, pool.length - 1), 1)[0] as T);
    return out;
  }
}
