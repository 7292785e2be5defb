/**
 * The judge's pure parts (src/names/judge.ts): the weights file checked at load, the features
 * an answer lists read back into the same confidence (what bench/fit-judge.ts fits on), the
 * legal-form agreement and the key similarity. Expected values written from docs/names.md.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { fitWeights, samplesOf } from '../bench/fit-judge.js';
import {
  confidenceOf,
  type Features,
  featureList,
  featuresFromList,
  keySimilarity,
  legalFormAgreement,
  readWeights,
  weightNames,
} from '../src/names/judge.js';

const base: Features = {
  nameKey: true,
  spokenKey: true,
  spokenKeyKnown: true,
  reading: false,
  romaji: false,
  formerName: false,
  similarity: 1,
  closed: false,
  rivals: 0,
  outranked: false,
};

describe('the weights file', () => {
  const folder = mkdtempSync(path.join(tmpdir(), 'judge-weights-'));
  afterAll(() => rmSync(folder, { recursive: true, force: true }));
  const write = (weights: Record<string, unknown>) => {
    const file = path.join(folder, 'weights.json');
    writeFileSync(file, JSON.stringify({ source: 'test', weights }));
    return file;
  };
  const all = Object.fromEntries(weightNames.map((name) => [name, 0]));

  it('holds every weight as a number, and nothing else', () => {
    expect(Object.keys(readWeights()).sort()).toEqual([...weightNames].sort());
    expect(() => readWeights(write({ ...all, phone: 'four' }))).toThrow('weight phone is not a number');
    expect(() => readWeights(write({ ...all, fax: 1 }))).toThrow('unknown weights fax');
    const { city: _, ...withoutCity } = all;
    expect(() => readWeights(write(withoutCity))).toThrow('weight city is not a number');
  });
});

describe('confidence', () => {
  it('a unique equal name key is a match at the default; namesakes, a closed company, another prefecture are not', () => {
    expect(confidenceOf(base)).toBeGreaterThanOrEqual(0.9);
    expect(confidenceOf({ ...base, rivals: 1 })).toBeLessThan(0.9);
    expect(confidenceOf({ ...base, closed: true })).toBeLessThan(0.5);
    expect(confidenceOf({ ...base, prefecture: false })).toBeLessThan(0.1);
    expect(confidenceOf({ ...base, corporateNumber: true, prefecture: false })).toBe(0.99);
    expect(confidenceOf({ ...base, corporateNumber: false })).toBeLessThan(0.01);
  });

  it('the features an answer lists give back the same confidence', () => {
    for (const features of [
      base,
      { ...base, nameKey: false, similarity: 0.62, prefecture: true, phone: true },
      { ...base, spokenKey: false, legalForm: false, city: false, website: true, rivals: 2 },
      { ...base, nameKey: false, spokenKey: false, spokenKeyKnown: false, formerName: true, outranked: true },
    ]) {
      const listed = featureList(features);
      expect(confidenceOf(featuresFromList(listed))).toBeCloseTo(confidenceOf(features), 2);
    }
    // a spoken key that could not be compared is not listed as false
    expect(featureList({ ...base, spokenKey: false, spokenKeyKnown: false }).map((f) => f.id)).not.toContain(
      'spokenKey',
    );
  });
});

describe('legal forms and similarity', () => {
  it('agrees, disagrees across kinds of body, says nothing among business forms or without a form', () => {
    expect(legalFormAgreement(['株式会社'], ['株式会社'])).toBe(true);
    expect(legalFormAgreement(['学校法人'], ['株式会社'])).toBe(false);
    expect(legalFormAgreement(['一般社団法人'], ['一般財団法人'])).toBe(false);
    expect(legalFormAgreement(['有限会社'], ['株式会社'])).toBeUndefined();
    expect(legalFormAgreement([], ['株式会社'])).toBeUndefined();
  });

  it('one less the edit distance over the longer key', () => {
    expect(keySimilarity('まるか物流', 'まるか物流')).toBe(1);
    expect(keySimilarity('まるか物流', 'まるか物')).toBeCloseTo(0.8);
    expect(keySimilarity('あ', '')).toBe(0);
    expect(keySimilarity('abc', 'xyz')).toBe(0);
  });
});

describe('bench/fit-judge.ts', () => {
  it('fits weights that separate right from wrong candidates on a small set', () => {
    const record = (from: string, candidates: Array<[string, Features]>) => ({
      entry: { kind: 'width' as const, record: { name: 'x' }, expected: from, from, certain: true },
      result: {
        candidates: candidates.map(([corporateNumber, f]) => ({ corporateNumber, features: featureList(f) })),
      },
    });
    const dumped = Array.from({ length: 40 }, (_, i) =>
      record(`r${i}`, [
        [`r${i}`, { ...base, phone: true }],
        [`w${i}`, { ...base, nameKey: false, spokenKey: false, similarity: 0.5, phone: false }],
      ]),
    );
    const samples = samplesOf(dumped);
    expect(samples).toHaveLength(80);
    expect(samples.filter((sample) => sample.right)).toHaveLength(40);
    const { weights, logLoss } = fitWeights(samples, readWeights());
    expect(logLoss).toBeLessThan(0.1);
    // features seen fewer than 20 times keep their weights (no closed company here)
    expect(weights.closed).toBe(readWeights().closed);
  });
});
