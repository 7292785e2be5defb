/**
 * The judge's pure parts (src/names/judge.ts): the weights file checked at load, the features
 * an answer lists read back into the same confidence (what bench/fit-judge.ts fits on), the
 * legal-form agreement and the key similarity; the features of a company for a record, the
 * rivals and the outranked among candidates, and what each feature does to the confidence.
 * Expected values written from docs/names.md ("The judge: features and confidence").
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { choicesOf, fitCalibration, fitWeights, handSet } from '../../bench/fit-judge.js';
import { evidenceOf, type MatchRecord } from '../../src/names/evidence.js';
import {
  agreementOf,
  type Calibration,
  calibrate,
  confidenceOf,
  confidencesOf,
  countRivals,
  type Features,
  featureList,
  featuresFromList,
  featuresOf,
  featureVector,
  keySimilarity,
  legalFormAgreement,
  mayMatch,
  nearSimilarity,
  oddsOf,
  oddsOfVector,
  readCalibration,
  readWeights,
  topConfidence,
  type WeightName,
  type Weights,
  weightNames,
  zOf,
} from '../../src/names/judge.js';
import type { Company } from '../../src/names/lookup.js';
import { twoDecimalsDown } from '../../src/names/match.js';
import { propertyParams } from '../support/fast-check.js';

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
    // JSON reads 1e999 as Infinity: a number, but no weight
    const file = path.join(folder, 'infinite.json');
    writeFileSync(
      file,
      `{"source": "test", "weights": ${JSON.stringify(all).replace('"phone":0', '"phone":1e999')}}`,
    );
    expect(() => readWeights(file)).toThrow('weight phone is not a number');
    expect(() => readWeights(write({ ...all, fax: 1, telex: 2 }))).toThrow('unknown weights fax, telex');
  });
});

describe('the calibration', () => {
  const folder = mkdtempSync(path.join(tmpdir(), 'judge-calibration-'));
  afterAll(() => rmSync(folder, { recursive: true, force: true }));
  const write = (calibration: unknown) => {
    const file = path.join(folder, 'weights.json');
    writeFileSync(file, JSON.stringify({ source: 'test', weights: readWeights(), calibration }));
    return file;
  };

  /** The message of what `load` throws (an Error, checked), or '' when it does not throw. */
  const refusal = (load: () => unknown) => {
    try {
      load();
    } catch (error) {
      expect(error).toBeInstanceOf(Error);
      return (error as Error).message;
    }
    return '';
  };

  it('is steps from 0, both columns rising, within 0-1; anything else is refused at load', () => {
    const steps = readCalibration();
    expect(steps[0]?.[0]).toBe(0);
    expect(
      readCalibration(
        write([
          [0, 0.01],
          [0.5, 0.5],
          [0.9, 0.97],
        ]),
      ),
    ).toHaveLength(3);
    expect(refusal(() => readCalibration(write([])))).toContain('calibration has no steps');
    expect(refusal(() => readCalibration(write([[0.1, 0.1]])))).toContain('calibration does not start at 0');
    expect(
      refusal(() =>
        readCalibration(
          write([
            [0, 0.1],
            [0.5, 0.05],
          ]),
        ),
      ),
    ).toContain('calibration step 2 does not rise');
    expect(
      refusal(() =>
        readCalibration(
          write([
            [0, 0.1],
            [0, 0.2],
          ]),
        ),
      ),
    ).toContain('calibration step 2 does not rise');
    expect(
      refusal(() =>
        readCalibration(
          write([
            [0, 0.1],
            [0.5, 1.2],
          ]),
        ),
      ),
    ).toContain('calibration step 2 is not [from, confidence]');
    expect(refusal(() => readCalibration(write([[0, 0.1, 3]])))).toContain(
      'calibration step 1 is not [from, confidence]',
    );
    expect(refusal(() => readCalibration(write([[0, '0.1']])))).toContain(
      'calibration step 1 is not [from, confidence]',
    );
    expect(refusal(() => readCalibration(write([[0, -0.1]])))).toContain(
      'calibration step 1 is not [from, confidence]',
    );
    expect(refusal(() => readCalibration(write([[-0.1, 0.1]])))).toContain(
      'calibration step 1 is not [from, confidence]',
    );
    // a confidence may stay level from one step to the next; a share may not
    expect(
      readCalibration(
        write([
          [0, 0.1],
          [0.5, 0.1],
        ]),
      ),
    ).toHaveLength(2);
  });

  it('reads a share through the step it falls in, never above the top confidence', () => {
    const steps: Calibration = [
      [0, 0.01],
      [0.3, 0.4],
      [0.6, 1],
    ];
    expect(calibrate(0, steps)).toBe(0.01);
    expect(calibrate(0.29, steps)).toBe(0.01);
    expect(calibrate(0.3, steps)).toBe(0.4);
    expect(calibrate(0.59, steps)).toBe(0.4);
    expect(calibrate(0.6, steps)).toBe(topConfidence);
  });
});

describe('the odds and the calibration as the service computes them', () => {
  const optional = <T>(value: fc.Arbitrary<T>) => fc.option(value, { nil: undefined });
  const features: fc.Arbitrary<Features> = fc
    .record({
      nameKey: fc.boolean(),
      spokenKey: fc.boolean(),
      spokenKeyKnown: fc.boolean(),
      reading: fc.boolean(),
      romaji: fc.boolean(),
      formerName: fc.boolean(),
      similarity: fc.oneof(fc.constantFrom(0, 0.39, 0.4, 1), fc.double({ min: 0, max: 1, noNaN: true })),
      legalForm: optional(fc.boolean()),
      prefecture: optional(fc.boolean()),
      city: optional(fc.boolean()),
      phone: optional(fc.boolean()),
      website: optional(fc.boolean()),
      corporateNumber: optional(fc.boolean()),
      closed: fc.boolean(),
      rivals: fc.nat(2000),
      outranked: fc.boolean(),
    })
    .map((drawn) => {
      // an absent feature is left out, as featuresOf leaves it
      const out: Record<string, unknown> = {};
      for (const [name, value] of Object.entries(drawn)) if (value !== undefined) out[name] = value;
      return out as unknown as Features;
    });
  const weights = fc
    .tuple(...weightNames.map(() => fc.double({ min: -20, max: 20, noNaN: true })))
    .map(
      (values) => Object.fromEntries(weightNames.map((name, i) => [name, values[i]])) as unknown as Weights,
    );

  const vectorZ = (x: Record<WeightName, number>, w: Weights) => {
    let z = 0;
    for (const name of weightNames) z += w[name] * x[name];
    return z;
  };

  it('the odds of a company are the odds of its feature vector (what the fit fits), to the last bit', () => {
    const shipped = readWeights();
    fc.assert(
      fc.property(features, weights, (drawn, w) => {
        expect(oddsOf(drawn, w)).toBe(oddsOfVector(featureVector(drawn), w));
        expect(oddsOf(drawn, shipped)).toBe(oddsOfVector(featureVector(drawn), shipped));
        // the sums themselves, where the odds' cap (z over 50) or exp's underflow would hide a
        // difference (+ 0: a sum of -0 terms is -0 one way and 0 the other, the same odds)
        expect(zOf(drawn, w) + 0).toBe(vectorZ(featureVector(drawn), w) + 0);
      }),
      propertyParams(2000),
    );
  });

  it('a share reads the last step it reaches, as a walk over the steps finds it', () => {
    const walk = (share: number, steps: Calibration) => {
      let confidence = steps[0]?.[1] ?? 0;
      for (const [from, value] of steps) {
        if (!(share >= from)) break;
        confidence = value;
      }
      return Math.min(topConfidence, confidence);
    };
    const shipped = readCalibration();
    const steps = fc
      .uniqueArray(fc.double({ min: 0, max: 1, noNaN: true, noDefaultInfinity: true }), {
        minLength: 1,
        maxLength: 60,
      })
      .map((froms) => {
        const sorted = [0, ...froms.filter((from) => from > 0)].sort((a, b) => a - b);
        return sorted.map((from, i): [number, number] => [from, i / sorted.length]);
      });
    const share = fc.oneof(fc.double({ min: 0, max: 1 }), fc.constant(Number.NaN));
    fc.assert(
      fc.property(steps, share, (table, drawn) => {
        expect(calibrate(drawn, table)).toBe(walk(drawn, table));
        // a share on a step's very edge reads that step
        for (const [from] of table) expect(calibrate(from, table)).toBe(walk(from, table));
        expect(calibrate(drawn, shipped)).toBe(walk(drawn, shipped));
      }),
      propertyParams(1000),
    );
  });
});

describe("the choice among a record's companies", () => {
  const identity: Calibration = Array.from({ length: 100 }, (_, i) => [i / 100, i / 100]);
  const w = readWeights();

  it('each company gets its share of the odds, "none of them" counting 1', () => {
    const odds = oddsOf(base, w);
    const [alone] = confidencesOf([base], w, identity);
    expect(alone).toBeCloseTo(Math.floor((odds / (1 + odds)) * 100) / 100, 10);
    // two namesakes share what one had: neither is a match
    const [first, second] = confidencesOf([base, base], w, identity);
    expect(first).toBe(second);
    expect(first).toBeCloseTo(Math.floor((odds / (1 + 2 * odds)) * 100) / 100, 10);
    expect(first).toBeLessThan(0.5);
    // a company the record rules out takes almost nothing from the other
    const [kept, ruledOut] = confidencesOf([base, { ...base, prefecture: false }], w, identity);
    expect(kept).toBeGreaterThan(0.9);
    expect(ruledOut).toBeLessThan(0.01);
  });

  it('a corporate number that agrees is the top confidence, whatever else', () => {
    expect(confidencesOf([{ ...base, corporateNumber: true, prefecture: false }, base])[0]).toBe(
      topConfidence,
    );
  });

  it('a match needs a key, a corporate number, or a phone or website beside a near name: a similar name alone never', () => {
    const near = {
      ...base,
      nameKey: false,
      spokenKey: false,
      similarity: 0.9,
      prefecture: true,
      legalForm: true,
    };
    expect(mayMatch(near)).toBe(false);
    expect(mayMatch({ ...near, phone: true })).toBe(true);
    expect(mayMatch({ ...near, website: true })).toBe(true);
    expect(mayMatch({ ...near, corporateNumber: true })).toBe(true);
    expect(mayMatch({ ...near, phone: false, website: false, city: true })).toBe(false);
    for (const key of ['nameKey', 'spokenKey', 'reading', 'romaji', 'formerName'] as const)
      expect(mayMatch({ ...near, [key]: true }), key).toBe(true);
    // no likeness of name at all (found by its city): no match either
    expect(mayMatch({ ...near, similarity: 0.1, city: true })).toBe(false);
    // a chance resemblance (under 0.4) with a phone or a website that agrees: a candidate only
    // (a group's companies share a number; a number passes to another holder)
    for (const evidence of [{ phone: true }, { website: true }])
      for (const similarity of [0, 0.39])
        expect(mayMatch({ ...near, similarity, ...evidence }), `${similarity}`).toBe(false);
    expect(mayMatch({ ...near, similarity: 0.4, phone: true })).toBe(true);
    expect(mayMatch({ ...near, similarity: 0, corporateNumber: true })).toBe(true);
    // a former name that is another company's name today: never the match, even where the
    // record's prefecture rules that company out; its corporate number still decides
    const former = { ...near, formerName: true, outranked: true };
    expect(mayMatch(former)).toBe(false);
    expect(mayMatch({ ...former, outranked: false })).toBe(true);
    expect(mayMatch({ ...former, corporateNumber: true })).toBe(true);
  });
});

describe('confidence', () => {
  it('a unique equal name key is a match at the default; namesakes, a closed company, another prefecture are not', () => {
    expect(confidenceOf(base)).toBeGreaterThanOrEqual(0.9);
    const namesake = { ...base, rivals: 1 };
    for (const each of confidencesOf([namesake, namesake])) expect(each).toBeLessThan(0.9);
    // closed in the register: a candidate, not a match (its corporate number aside)
    expect(mayMatch({ ...base, closed: true })).toBe(false);
    expect(mayMatch({ ...base, closed: true, corporateNumber: true })).toBe(true);
    expect(confidenceOf({ ...base, closed: true })).toBeLessThan(0.9);
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

  it('counts characters, not UTF-16 units: a kanji outside the BMP is one edit', () => {
    // 𩸽 (U+29E3D) is two UTF-16 units; one character replaced in three either way
    expect(keySimilarity('𩸽水産', '鮭水産')).toBeCloseTo(keySimilarity('鯖水産', '鮭水産'), 10);
    expect(keySimilarity('𩸽水産', '鮭水産')).toBeCloseTo(2 / 3, 10);
    expect(keySimilarity('𩸽𩸽', '𩸽')).toBeCloseTo(0.5, 10);
    expect(keySimilarity('水産𩸽', '水産')).toBeCloseTo(2 / 3, 10);
    expect(keySimilarity('水𩸽産', '水産')).toBeCloseTo(2 / 3, 10);
    expect(keySimilarity('𩸽', '𩸽水産')).toBeCloseTo(1 / 3, 10);
    expect(keySimilarity('𩸽abc', 'xabc')).toBeCloseTo(0.75, 10);
    expect(keySimilarity('ab𩸽', 'ba𩸽')).toBeCloseTo(1 / 3, 10);
  });
});

describe('legal forms and similarity: the edges', () => {
  it('a record or a company without a form says nothing, whatever the other is', () => {
    expect(legalFormAgreement([], ['学校法人'])).toBeUndefined();
    expect(legalFormAgreement(['学校法人'], [])).toBeUndefined();
  });

  it('one form in common agrees; a business form beside another kind of body does not excuse it', () => {
    expect(legalFormAgreement(['学校法人', '株式会社'], ['株式会社'])).toBe(true);
    expect(legalFormAgreement(['株式会社', '学校法人'], ['有限会社'])).toBe(false);
  });

  it('a key missing on either side is no similarity; the longer key divides', () => {
    expect(keySimilarity(undefined, 'まるか')).toBe(0);
    expect(keySimilarity('まるか', undefined)).toBe(0);
    // the shorter key first: 1 - 2 / 3
    expect(keySimilarity('あ', 'あいう')).toBeCloseTo(1 / 3);
  });
});

/** A company as the lookup reads it from the index (keys already folded). */
function company(over: Partial<Omit<Company, 'keys'>> & { keys?: Partial<Company['keys']> } = {}): Company {
  const { keys, ...rest } = over;
  return {
    corporateNumber: '7000012050002',
    name: 'マルカ物流株式会社',
    furigana: null,
    prefectureId: 14,
    cityName: '厚木市',
    phone: '0461112222',
    host: 'maruka.example.jp',
    closed: false,
    ...rest,
    keys: { name: 'まるか物流', spoken: 'まるか物流', former: [], ...keys },
  };
}

const full: MatchRecord = {
  name: 'マルカ物流株式会社',
  prefectureId: 14,
  address: '神奈川県厚木市中町1-1',
  phoneNumber: '046-111-2222',
  websiteUrl: 'https://maruka.example.jp/',
  corporateNumber: '7000-0120-5000-2',
};

const featuresFor = (record: MatchRecord, c: Company = company()) => featuresOf(c, evidenceOf(record));

describe('the features of a company for a record', () => {
  it('everything agrees: each feature true, the name exactly', () => {
    expect(featuresFor(full)).toEqual({
      nameKey: true,
      spokenKey: true,
      reading: false,
      romaji: false,
      formerName: false,
      spokenKeyKnown: true,
      similarity: 1,
      legalForm: true,
      prefecture: true,
      city: true,
      phone: true,
      website: true,
      corporateNumber: true,
      closed: false,
      rivals: 0,
      outranked: false,
    });
  });

  it('everything differs: each feature false, what the record leaves out absent', () => {
    const other = company({
      corporateNumber: '2000012010019',
      name: '学校法人ミツワ学園',
      prefectureId: 13,
      cityName: '世田谷区',
      phone: '0311112222',
      host: 'mitsuwa.example.jp',
      closed: true,
      keys: { name: 'みつわ学園', spoken: 'みつわ学園', reading: 'みつわがくえん', romaji: 'mitsuwa' },
    });
    expect(featuresFor(full, other)).toEqual({
      nameKey: false,
      spokenKey: false,
      reading: false,
      romaji: false,
      formerName: false,
      spokenKeyKnown: true,
      similarity: 0,
      legalForm: false,
      prefecture: false,
      city: false,
      phone: false,
      website: false,
      corporateNumber: false,
      closed: true,
      rivals: 0,
      outranked: false,
    });
    // a name alone: no legal form, prefecture, city, phone, website or number compared
    const listed = featureList(featuresFor({ name: 'ミツワ' }, other)).map((f) => f.id);
    expect(listed).toEqual([
      'nameKey',
      'spokenKey',
      'reading',
      'romaji',
      'formerName',
      'similarity',
      'closed',
      'rivals',
      'outranked',
    ]);
  });

  it('a reading derived from the record counts only where the name and spoken keys do not agree', () => {
    const derived = (name: string, reading: string) => ({
      ...evidenceOf({ name }),
      readingDerived: true,
      keys: { ...evidenceOf({ name }).keys, reading },
    });
    // トウヨウ物産 read whole: とうようぶっさん, the company's reading; its name differs
    const toyo = company({ keys: { name: '東洋物産', spoken: '東洋物産', reading: 'とうようぶっさん' } });
    expect(featuresOf(toyo, derived('トウヨウ物産', 'とうようぶっさん'))).toMatchObject({
      nameKey: false,
      reading: true,
    });
    // beside an equal name (or spoken) key it says nothing more
    const same = company({
      keys: { name: 'とうよう物産', spoken: 'とうよう物産', reading: 'とうようぶっさん' },
    });
    expect(featuresOf(same, derived('トウヨウ物産', 'とうようぶっさん'))).toMatchObject({
      nameKey: true,
      reading: false,
    });
    const spoken = company({
      keys: {
        name: 'x',
        spoken: evidenceOf({ name: 'トウヨウ物産' }).keys.spoken,
        reading: 'とうようぶっさん',
      },
    });
    expect(featuresOf(spoken, derived('トウヨウ物産', 'とうようぶっさん'))).toMatchObject({
      spokenKey: true,
      reading: false,
    });
    // a reading the record has of its own (kana alone) is listed beside the name as before
    const kana = company({ keys: { name: 'まるか', spoken: 'まるか', reading: 'まるか' } });
    expect(featuresOf(kana, evidenceOf({ name: 'マルカ' }))).toMatchObject({ nameKey: true, reading: true });
  });

  it('a reading or romaji key agrees only when the record has one', () => {
    // ﾏﾙｶ is kana only: a reading key まるか
    expect(
      featuresFor({ name: 'ﾏﾙｶ' }, company({ keys: { name: '丸歌', reading: 'まるか' } })),
    ).toMatchObject({
      nameKey: false,
      reading: true,
    });
    expect(
      featuresFor({ name: 'Maruka' }, company({ keys: { name: 'まるか', romaji: 'maruka' } })),
    ).toMatchObject({
      nameKey: false,
      romaji: true,
    });
    // the record's reading or romaji key is another than the company's
    expect(featuresFor({ name: 'ﾏﾙｶ' }, company({ keys: { name: '丸歌', reading: 'みつわ' } })).reading).toBe(
      false,
    );
    expect(
      featuresFor({ name: 'Maruka' }, company({ keys: { name: 'まるか', romaji: 'mitsuwa' } })).romaji,
    ).toBe(false);
    // neither the record (kanji) nor the company has a reading or romaji key: nothing agrees
    expect(
      featuresFor({ name: 'マルカ物流' }, company({ keys: { name: 'まるか運輸', spoken: 'まるか運輸' } })),
    ).toMatchObject({
      reading: false,
      romaji: false,
    });
  });

  it('a former name agrees, and its similarity counts', () => {
    const renamed = company({
      keys: { name: 'えむけい物流', spoken: 'えむけい物流', former: ['まるか物流'] },
    });
    expect(featuresFor({ name: 'マルカ物流' }, renamed)).toMatchObject({
      nameKey: false,
      formerName: true,
      similarity: 1,
    });
  });

  it('the similarity is the best of the name, spoken, reading, romaji and former keys', () => {
    const far = { name: 'ざざざざざざ', spoken: 'ざざざざざざ' };
    const record = { name: 'ｱｲｳｴｵ' }; // name and reading key あいうえお
    expect(featuresFor(record, company({ keys: { ...far, name: 'あいうえ' } })).similarity).toBeCloseTo(0.8);
    expect(featuresFor(record, company({ keys: { ...far, spoken: 'あいうえ' } })).similarity).toBeCloseTo(
      0.8,
    );
    expect(featuresFor(record, company({ keys: { ...far, reading: 'あいう' } })).similarity).toBeCloseTo(0.6);
    expect(
      featuresFor({ name: 'abcde' }, company({ keys: { ...far, romaji: 'abcd' } })).similarity,
    ).toBeCloseTo(0.8);
    expect(
      featuresFor(record, company({ keys: { ...far, former: ['あいうえおか'] } })).similarity,
    ).toBeCloseTo(5 / 6);
  });

  it('a name that names no one company (a legal form alone, a generic word) agrees with nothing', () => {
    for (const name of ['株式会社', '物流']) {
      const same = company({ name, keys: { name: '物流', spoken: '物流', reading: '', former: ['物流'] } });
      expect(featuresFor({ name }, same)).toMatchObject({
        nameKey: false,
        spokenKey: false,
        formerName: false,
        spokenKeyKnown: false,
        similarity: 0,
      });
    }
  });

  it('a company without a spoken key: the spoken key is not compared', () => {
    const features = featuresFor(
      { name: 'マルカ物流' },
      company({ keys: { name: 'まるか物流', spoken: undefined } }),
    );
    expect(features).toMatchObject({ nameKey: true, spokenKey: false, spokenKeyKnown: false });
    expect(featureList(features).map((f) => f.id)).not.toContain('spokenKey');
  });

  it('legal forms: another kind of body disagrees, another business form says nothing', () => {
    expect(
      featuresFor({ name: '株式会社マルカ物流' }, company({ name: '学校法人マルカ物流' })).legalForm,
    ).toBe(false);
    expect(
      featuresFor({ name: '株式会社マルカ物流' }, company({ name: '有限会社マルカ物流' })),
    ).not.toHaveProperty('legalForm');
    expect(featuresFor({ name: 'マルカ物流' })).not.toHaveProperty('legalForm');
  });

  it("the prefecture: one that is the company's agrees; two in one record agree with none", () => {
    expect(featuresFor({ name: 'マルカ物流', prefectureId: 14 }).prefecture).toBe(true);
    expect(featuresFor({ name: 'マルカ物流', prefectureId: 13 }).prefecture).toBe(false);
    expect(featuresFor({ name: 'マルカ物流', prefectureId: 13, address: '神奈川県厚木市' }).prefecture).toBe(
      false,
    );
    expect(featuresFor({ name: 'マルカ物流', prefectureId: 14, address: '東京都港区' }).prefecture).toBe(
      false,
    );
    expect(featuresFor({ name: 'マルカ物流', prefectureId: 14, address: '神奈川県厚木市' }).prefecture).toBe(
      true,
    );
    expect(featuresFor({ name: 'マルカ物流' })).not.toHaveProperty('prefecture');
  });

  it('the city: after a prefecture it agrees or not; without one, only its agreement counts', () => {
    expect(featuresFor({ name: 'マルカ物流', address: '神奈川県厚木市中町1-1' }).city).toBe(true);
    expect(featuresFor({ name: 'マルカ物流', address: '神奈川県横浜市中区' }).city).toBe(false);
    expect(featuresFor({ name: 'マルカ物流', address: '厚木市中町1-1' }).city).toBe(true);
    // 中町1-1 may be a street of the company's city: no city named, no disagreement
    expect(featuresFor({ name: 'マルカ物流', address: '中町1-1' })).not.toHaveProperty('city');
    expect(
      featuresFor({ name: 'マルカ物流', address: '神奈川県厚木市' }, company({ cityName: null })),
    ).not.toHaveProperty('city');
    expect(featuresFor({ name: 'マルカ物流' })).not.toHaveProperty('city');
  });

  it('phone, website, corporate number: compared only when both sides have one', () => {
    const bare = company({ phone: undefined, host: undefined });
    expect(featuresFor(full, bare)).not.toHaveProperty('phone');
    expect(featuresFor(full, bare)).not.toHaveProperty('website');
    expect(featuresFor({ name: 'マルカ物流' })).not.toHaveProperty('phone');
    expect(featuresFor({ name: 'マルカ物流' })).not.toHaveProperty('website');
    expect(featuresFor({ name: 'マルカ物流', phoneNumber: '045-999-0000' }).phone).toBe(false);
    expect(featuresFor({ name: 'マルカ物流', websiteUrl: 'other.example.jp' }).website).toBe(false);
    // a number whose check digit is wrong is no evidence
    expect(featuresFor({ name: 'マルカ物流', corporateNumber: '7000012050003' })).not.toHaveProperty(
      'corporateNumber',
    );
    expect(featuresFor({ name: 'マルカ物流', corporateNumber: '2000012010019' }).corporateNumber).toBe(false);
  });
});

describe('the strongest agreement', () => {
  const none: Features = { ...base, nameKey: false, spokenKey: false, similarity: 0 };
  it('name key, spoken key, reading, romaji, former name, then a near name from 0.4', () => {
    const all = { ...none, nameKey: true, spokenKey: true, reading: true, romaji: true, formerName: true };
    expect(agreementOf(all)).toBe('nameKey');
    expect(agreementOf({ ...all, nameKey: false })).toBe('spokenKey');
    expect(agreementOf({ ...all, nameKey: false, spokenKey: false })).toBe('reading');
    expect(agreementOf({ ...all, nameKey: false, spokenKey: false, reading: false })).toBe('romaji');
    expect(agreementOf({ ...none, formerName: true, similarity: 0.9 })).toBe('formerName');
    expect(nearSimilarity).toBe(0.4);
    expect(agreementOf({ ...none, similarity: 0.4 })).toBe('similar');
    expect(agreementOf({ ...none, similarity: 0.39 })).toBeUndefined();
  });
});

describe('rivals and the outranked', () => {
  const nameKey: Features = { ...base };
  const judged = (...list: Features[]) => {
    const copies = list.map((features) => ({ ...features }));
    countRivals(copies);
    return copies.map(({ rivals, outranked }) => ({ rivals, outranked }));
  };

  it("two namesakes are each other's rivals; the city, phone, website or very legal form singles one out", () => {
    expect(judged(nameKey, nameKey)).toEqual([
      { rivals: 1, outranked: false },
      { rivals: 1, outranked: false },
    ]);
    expect(judged(nameKey, nameKey, nameKey).map((r) => r.rivals)).toEqual([2, 2, 2]);
    for (const support of [{ city: true }, { phone: true }, { website: true }, { legalForm: true }])
      expect(judged({ ...nameKey, ...support }, nameKey)).toEqual([
        { rivals: 0, outranked: false },
        { rivals: 1, outranked: false },
      ]);
    // a city that differs is no support either way
    expect(judged({ ...nameKey, city: false }, nameKey).map((r) => r.rivals)).toEqual([1, 1]);
  });

  it("a near name's rivals: the other near names as near or nearer, not contradicted, with as much support", () => {
    const near = (similarity: number, more: Partial<Features> = {}): Features => ({
      ...nameKey,
      nameKey: false,
      spokenKey: false,
      similarity,
      ...more,
    });
    // three namesakes of one near name: each the others' rival
    expect(judged(near(0.83), near(0.83), near(0.83)).map((r) => r.rivals)).toEqual([2, 2, 2]);
    // a less similar name has the nearer ones as rivals; they do not count it
    expect(judged(near(0.83), near(0.83), near(0.6)).map((r) => r.rivals)).toEqual([1, 1, 2]);
    // contradicted near names are no rivals; a contradicted one still has the others as rivals
    expect(judged(near(0.83), near(0.8, { prefecture: false })).map((r) => r.rivals)).toEqual([0, 1]);
    // support singles one out, as among namesakes
    expect(judged(near(0.83, { city: true }), near(0.83)).map((r) => r.rivals)).toEqual([0, 1]);
    // an equal key is no near name's rival: it outranks it
    expect(judged(nameKey, near(0.83), near(0.83))).toEqual([
      { rivals: 0, outranked: false },
      { rivals: 1, outranked: true },
      { rivals: 1, outranked: true },
    ]);
    // below the near-name similarity the name is not near: no rivals counted
    expect(judged(near(0.3), near(0.3)).map((r) => r.rivals)).toEqual([0, 0]);
  });

  it('a namesake the record contradicts (another prefecture, another kind of body) is no rival', () => {
    for (const contradiction of [{ prefecture: false }, { legalForm: false }])
      expect(judged(nameKey, { ...nameKey, ...contradiction })).toEqual([
        { rivals: 0, outranked: false },
        { rivals: 1, outranked: false },
      ]);
  });

  it('a weaker agreement is outranked, not a rival', () => {
    const spoken = { ...nameKey, nameKey: false };
    const similar = { ...nameKey, nameKey: false, spokenKey: false, similarity: 0.8 };
    expect(judged(nameKey, spoken, similar)).toEqual([
      { rivals: 0, outranked: false },
      { rivals: 0, outranked: true },
      { rivals: 0, outranked: true },
    ]);
    // equal reading and romaji keys are as strong as an equal spoken key; a former name weaker
    const reading = { ...spoken, spokenKey: false, reading: true };
    const romaji = { ...spoken, spokenKey: false, romaji: true };
    const former = { ...spoken, spokenKey: false, formerName: true };
    expect(judged(spoken, reading, romaji, former)).toEqual([
      { rivals: 2, outranked: false },
      { rivals: 2, outranked: false },
      { rivals: 2, outranked: false },
      { rivals: 0, outranked: true },
    ]);
  });

  it('counted in one pass, as the pairwise definition counts them, for any mix of companies', () => {
    // the definition written out pair by pair (what countRivals computes without the pairs)
    const strength = (f: Features) => {
      const on = agreementOf(f);
      if (on === 'nameKey' && f.spokenKeyKnown && !f.spokenKey) return 4;
      return on === undefined
        ? 0
        : { nameKey: 5, spokenKey: 4, reading: 4, romaji: 4, formerName: 3, similar: 1 }[on];
    };
    const against = (f: Features) => f.prefecture === false || f.legalForm === false;
    const backing = (f: Features) =>
      Number(f.city === true) +
      Number(f.phone === true) +
      Number(f.website === true) +
      Number(f.legalForm === true);
    const pairwise = (list: Features[]) =>
      list.map((f) => {
        const on = agreementOf(f);
        const byKey = on !== undefined && on !== 'similar';
        const outranked = list.some(
          (o) =>
            strength(o) > strength(f) &&
            (on === 'formerName' || !against(o)) &&
            (!byKey || backing(o) >= backing(f)),
        );
        const rival = (o: Features) =>
          o !== f &&
          strength(o) === strength(f) &&
          !against(o) &&
          backing(o) >= backing(f) &&
          (on !== 'similar' || o.similarity >= f.similarity);
        const rivals = on === undefined ? 0 : list.filter(rival).length;
        return { rivals, outranked };
      });
    const maybe = fc.option(fc.boolean(), { nil: undefined });
    const company = fc.record({
      nameKey: fc.boolean(),
      spokenKey: fc.boolean(),
      reading: fc.boolean(),
      romaji: fc.boolean(),
      formerName: fc.boolean(),
      spokenKeyKnown: fc.boolean(),
      similarity: fc.constantFrom(0, 0.39, 0.4, 0.8, 0.9),
      legalForm: maybe,
      prefecture: maybe,
      city: maybe,
      phone: maybe,
      website: maybe,
    });
    // near names (no key equal) drawn as often as the rest: a random company seldom is one
    const nearName = company.map((f) => ({
      ...f,
      nameKey: false,
      spokenKey: false,
      reading: false,
      romaji: false,
      formerName: false,
    }));
    fc.assert(
      fc.property(fc.array(fc.oneof(company, nearName), { maxLength: 12 }), (drawn) => {
        const list = drawn.map((f) => ({ ...base, ...f, rivals: 0, outranked: false }) as Features);
        expect(judged(...list)).toEqual(pairwise(list));
      }),
      propertyParams(300),
    );
  });

  it('a key agreement with more support is not outranked by a stronger one with less', () => {
    // ﾜｶﾊﾞﾈｯﾄﾜｰｸｽ株式会社 (name key, no phone) and 株式会社若葉ネットワークス (reading, phone agrees)
    const byName = { ...nameKey, legalForm: true };
    const byReading = {
      ...nameKey,
      nameKey: false,
      spokenKey: false,
      reading: true,
      legalForm: true,
      phone: true,
    };
    expect(judged(byName, byReading)).toEqual([
      { rivals: 0, outranked: false },
      { rivals: 0, outranked: false },
    ]);
    // as much support on the stronger side: outranked as before
    expect(judged({ ...byName, phone: true }, byReading)[1]).toEqual({ rivals: 0, outranked: true });
  });

  it('a company only the evidence brought in (a phone, no name agreement) is outranked, and no rival', () => {
    const byPhone = { ...nameKey, nameKey: false, spokenKey: false, similarity: 0.2, phone: true };
    expect(judged(nameKey, byPhone)).toEqual([
      { rivals: 0, outranked: false },
      { rivals: 0, outranked: true },
    ]);
    expect(judged(byPhone, byPhone)).toEqual([
      { rivals: 0, outranked: false },
      { rivals: 0, outranked: false },
    ]);
  });

  it('equal name keys with spoken keys apart are as strong as equal spoken keys', () => {
    // ソリューションズ＆エイム and ソリューションズエイム: one name key, two spoken keys
    const apart = { ...nameKey, spokenKey: false };
    const spoken = { ...nameKey, nameKey: false };
    expect(judged(apart, spoken)).toEqual([
      { rivals: 1, outranked: false },
      { rivals: 1, outranked: false },
    ]);
    // with no spoken key to compare, an equal name key is the strongest
    expect(judged({ ...apart, spokenKeyKnown: false }, spoken)).toEqual([
      { rivals: 0, outranked: false },
      { rivals: 0, outranked: true },
    ]);
  });

  it('a contradicted stronger company outranks only a former name', () => {
    const elsewhere = { ...nameKey, prefecture: false };
    const former = { ...nameKey, nameKey: false, spokenKey: false, formerName: true };
    const similar = { ...nameKey, nameKey: false, spokenKey: false, similarity: 0.8 };
    expect(judged(elsewhere, former)).toEqual([
      { rivals: 0, outranked: false },
      { rivals: 0, outranked: true },
    ]);
    expect(judged(elsewhere, similar)).toEqual([
      { rivals: 0, outranked: false },
      { rivals: 0, outranked: false },
    ]);
  });
});

describe('what each feature does to the confidence', () => {
  // the odds are strictly monotone in each feature; the calibration after them rises in steps
  const confidence = (features: Features) => oddsOf(features);

  it('the documented cases: a unique name key, namesakes, a near name with evidence', () => {
    expect(confidenceOf(base)).toBeGreaterThanOrEqual(0.9);
    // two namesakes: each about half, neither a match
    for (const each of confidencesOf([base, base])) expect(each).toBeLessThan(0.6);
    // a near name alone: a candidate, never a match, however likely; with the phone, a match
    const near = { ...base, nameKey: false, spokenKey: false, similarity: 0.8 };
    expect(confidenceOf(near)).toBeLessThan(0.9);
    expect(mayMatch(near)).toBe(false);
    expect(confidenceOf({ ...near, phone: true, prefecture: true })).toBeGreaterThanOrEqual(0.9);
    expect(mayMatch({ ...near, phone: true, prefecture: true })).toBe(true);
  });

  it('agreeing raises it, differing lowers it, not compared leaves it', () => {
    const weak = { ...base, nameKey: false, spokenKey: false, similarity: 0.6 };
    for (const id of ['legalForm', 'prefecture', 'city', 'phone', 'website'] as const) {
      const agrees = confidence({ ...weak, [id]: true });
      const differs = confidence({ ...weak, [id]: false });
      expect(agrees, id).toBeGreaterThan(confidence(weak));
      expect(differs, id).toBeLessThan(confidence(weak));
    }
    // a difference in phone or website weighs less than a match (a company has several)
    expect(Math.log(confidence(weak)) - Math.log(confidence({ ...weak, phone: false }))).toBeLessThan(
      Math.log(confidence({ ...weak, phone: true })) - Math.log(confidence(weak)),
    );
  });

  it('the kind of key: the name key first; any equal key above a near name alone', () => {
    const none = { ...base, nameKey: false, spokenKey: false, similarity: 1 };
    const name = confidence({ ...none, nameKey: true, spokenKey: true });
    for (const key of ['spokenKey', 'reading', 'romaji', 'formerName'] as const) {
      const keyed = confidence({ ...none, [key]: true });
      expect(name, key).toBeGreaterThan(keyed);
      expect(keyed, key).toBeGreaterThan(confidence(none));
    }
  });

  it('equal name keys with spoken keys apart count as equal spoken keys; not when unknown', () => {
    expect(confidence({ ...base, spokenKey: false })).toBe(confidence({ ...base, nameKey: false }));
    expect(confidence({ ...base, spokenKey: false })).toBeLessThan(confidence(base));
    expect(confidence({ ...base, spokenKey: false, spokenKeyKnown: false })).toBe(confidence(base));
  });

  it('closed, outranked and more rivals lower it', () => {
    expect(confidence({ ...base, closed: true })).toBeLessThan(confidence(base));
    expect(confidence({ ...base, outranked: true })).toBeLessThan(confidence(base));
    expect(confidence({ ...base, rivals: 2 })).toBeLessThan(confidence({ ...base, rivals: 1 }));
  });
});

describe('the features as the answer lists them', () => {
  const every: Features = {
    ...base,
    reading: true,
    romaji: true,
    formerName: true,
    similarity: 0.6234,
    legalForm: true,
    prefecture: false,
    city: true,
    phone: false,
    website: true,
    corporateNumber: false,
    closed: true,
    rivals: 2,
    outranked: true,
  };

  it('in a fixed order, the similarity to two decimals', () => {
    expect(featureList(every)).toEqual([
      { id: 'nameKey', value: true },
      { id: 'spokenKey', value: true },
      { id: 'reading', value: true },
      { id: 'romaji', value: true },
      { id: 'formerName', value: true },
      { id: 'similarity', value: 0.62 },
      { id: 'legalForm', value: true },
      { id: 'prefecture', value: false },
      { id: 'city', value: true },
      { id: 'phone', value: false },
      { id: 'website', value: true },
      { id: 'corporateNumber', value: false },
      { id: 'closed', value: true },
      { id: 'rivals', value: 2 },
      { id: 'outranked', value: true },
    ]);
  });

  it('read back into the same features', () => {
    const listed = { ...every, similarity: 0.62 };
    expect(featuresFromList(featureList(listed))).toEqual(listed);
    const flipped: Features = {
      ...base,
      spokenKey: false,
      legalForm: false,
      prefecture: true,
      city: false,
      phone: true,
      website: false,
      corporateNumber: true,
    };
    expect(featuresFromList(featureList(flipped))).toEqual(flipped);
    const unknown: Features = {
      ...base,
      nameKey: false,
      spokenKey: false,
      spokenKeyKnown: false,
      similarity: 0.5,
    };
    expect(featuresFromList(featureList(unknown))).toEqual(unknown);
    // an empty list: nothing compared
    expect(featuresFromList([])).toEqual({
      nameKey: false,
      spokenKey: false,
      spokenKeyKnown: false,
      reading: false,
      romaji: false,
      formerName: false,
      similarity: 0,
      closed: false,
      rivals: 0,
      outranked: false,
    });
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
    const dumped = Array.from({ length: 200 }, (_, i) =>
      record(`r${i}`, [
        [`r${i}`, { ...base, website: true, phone: true }],
        [
          `w${i}`,
          { ...base, nameKey: false, spokenKey: false, similarity: 0.5, website: false, phone: false },
        ],
      ]),
    );
    const choices = choicesOf(dumped);
    expect(choices).toHaveLength(200);
    expect(choices.every((choice) => choice.right === 0 && choice.xs.length === 2)).toBe(true);
    const { weights, logLoss } = fitWeights(choices);
    expect(logLoss).toBeLessThan(0.1);
    // the website separates them here: the fit strengthens it beyond its hand-set weight
    expect(weights.website).toBeGreaterThan(handSet.website);
    // a rule the set never shows keeps its hand-set weight (no closed company here)
    expect(weights.closed).toBe(handSet.closed);
    // the calibration rises, from 0, and says the right ones are right
    const calibration = fitCalibration(choices, weights);
    expect(calibration[0]?.[0]).toBe(0);
    expect(calibration.at(-1)?.[1]).toBeGreaterThan(0.95);
  });

  /** A record of one near-name candidate of `similarity`, right or not (a calibration's input). */
  const alone = (similarity: number, right: boolean) => ({
    xs: [featureVector({ ...base, nameKey: false, spokenKey: false, similarity })],
    right: right ? 0 : -1,
  });

  it('writes calibration steps that rise, even where the half right added would put a large step under a small one', () => {
    // 150 candidates at a low share, none right (0.5 / 151 = 0.0033 once smoothed), then 1,000
    // at a higher share, one right (rate 0.001 > 0, so isotonic keeps the two apart, but
    // smoothed 1.5 / 1,001 = 0.0015)
    const choices = [
      ...Array.from({ length: 150 }, () => alone(0.1, false)),
      ...Array.from({ length: 1000 }, (_, i) => alone(0.2, i === 0)),
    ];
    const calibration = fitCalibration(choices, handSet);
    expect(calibration.length).toBeGreaterThanOrEqual(2);
    calibration.forEach((step, i) => {
      if (i > 0) expect(step[1]).toBeGreaterThanOrEqual(calibration[i - 1]?.[1] as number);
    });
  });

  it('writes steps whose starts differ once rounded: two that round alike are one', () => {
    // after a first step, two at shares a hair apart, the second all right: isotonic keeps
    // them apart, their starts round to the same sixth decimal
    const choices = [
      ...Array.from({ length: 150 }, () => alone(0.05, false)),
      ...Array.from({ length: 150 }, (_, i) => alone(0.1, i < 50)),
      ...Array.from({ length: 150 }, () => alone(0.1000001, true)),
    ];
    const calibration = fitCalibration(choices, handSet);
    const starts = calibration.map((step) => step[0]);
    expect(new Set(starts).size).toBe(starts.length);
    expect(calibration.at(-1)?.[1]).toBeGreaterThan(0.9);
    // and the file reads back
    const folder = mkdtempSync(path.join(tmpdir(), 'judge-steps-'));
    const file = path.join(folder, 'table.json');
    writeFileSync(file, JSON.stringify({ source: 'test', weights: handSet, calibration }));
    expect(readCalibration(file)).toEqual(calibration);
    rmSync(folder, { recursive: true });
  });
});

describe('a confidence as answered', () => {
  it('is cut to two decimals, never rounded up past what was fitted', () => {
    // two namesakes, each right half the time: stays in the band 0.4-0.5
    expect(twoDecimalsDown(0.498)).toBe(0.49);
    expect(twoDecimalsDown(0.945)).toBe(0.94);
    // values already of two decimals stay as they are (0.29 * 100 is 28.999...)
    for (const value of [0, 0.29, 0.5, 0.7, 0.99, 1]) expect(twoDecimalsDown(value)).toBe(value);
    // never above the value, never more than 0.01 below, never across a band of 0.1
    fc.assert(
      fc.property(fc.double({ min: 0, max: 1, noNaN: true }), (value) => {
        const cut = twoDecimalsDown(value);
        return (
          cut <= value + 1e-9 &&
          value - cut < 0.01 + 1e-9 &&
          Math.floor(cut * 10 + 1e-9) === Math.floor(value * 10 + 1e-9)
        );
      }),
      propertyParams(1000),
    );
  });
});
