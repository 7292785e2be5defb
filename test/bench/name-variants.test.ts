/**
 * The labelled test records of name matching (bench/name-variants.ts): each class of spelling
 * changes a name as it says and nothing else that matters, the labels follow the contract
 * (one company left after the evidence, else null), and a seed gives the same records.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  formOf,
  kanaToRomaji,
  type LabelledRecord,
  makeVariants,
  nearMissClasses,
  readingCore,
  referenceKey,
  romajiKey,
  type SampleCompany,
  spellingClasses,
  writeVariant,
} from '../../bench/name-variants.js';
import { generateDataSet } from '../../sample-data/index.js';

const company = (
  n: number,
  name: string,
  furigana: string,
  prefectureId: number,
  more: Partial<SampleCompany> = {},
): SampleCompany => ({
  corporateNumber: String(1_000_000_000_000 + n),
  name,
  furigana,
  prefectureId,
  ...more,
});

const yamada = company(1, '株式会社山田建設', 'カブシキガイシャヤマダケンセツ', 13, {
  phoneNumber: '03-1111-1111',
  websiteUrl: 'https://www.yamada.example.co.jp/',
});
const venus = company(2, 'ヴィーナス・ラボ合同会社', 'ヴィーナスラボゴウドウガイシャ', 27);
const capital = company(3, 'キャピタルサービス有限会社', 'キャピタルサービスユウゲンガイシャ', 23);
const takahashi = company(4, '株式会社髙橋商事', 'カブシキガイシャタカハシショウジ', 14);
const sasaki = company(5, '佐々木物流株式会社', 'ササキブツリュウカブシキガイシャ', 1);
const abc = company(6, 'ＡＢＣ商事株式会社', 'エービーシーショウジカブシキガイシャ', 40);
const ale = company(7, '株式会社ｴｰﾙ工業', 'カブシキガイシャエールコウギョウ', 26);
const fuji = company(8, '株式会社富士交通', 'カブシキガイシャフジコウツウ', 22);
// namesakes: twice in Tokyo (told apart by telephone only), once in Osaka
const toyoA = company(9, '株式会社東洋物産', 'カブシキガイシャトウヨウブッサン', 13, {
  phoneNumber: '03-2222-2222',
});
const toyoB = company(10, '株式会社東洋物産', 'カブシキガイシャトウヨウブッサン', 13, {
  phoneNumber: '03-3333-3333',
});
const toyoC = company(11, '東洋物産株式会社', 'トウヨウブッサンカブシキガイシャ', 27);
const fixture = [yamada, venus, capital, takahashi, sasaki, abc, ale, fuji, toyoA, toyoB, toyoC];

describe('each class of spelling', () => {
  const ways = (kind: (typeof spellingClasses)[number], source: SampleCompany, count: number) =>
    Array.from({ length: count }, (_, n) => writeVariant(kind, source, n));

  it('moves, shortens and drops the legal form', () => {
    expect(writeVariant('legal-form-moved', yamada, 0)).toBe('山田建設株式会社');
    expect(writeVariant('legal-form-moved', sasaki, 0)).toBe('株式会社佐々木物流');
    expect(ways('legal-form-abbreviated', yamada, 4)).toEqual([
      '㈱山田建設',
      '(株)山田建設',
      '（株）山田建設',
      'ｶﾌﾞｼｷｶﾞｲｼｬ山田建設',
    ]);
    expect(writeVariant('legal-form-abbreviated', capital, 0)).toBe('キャピタルサービス㈲');
    expect(writeVariant('legal-form-abbreviated', venus, 0)).toBe('ヴィーナス・ラボ(同)');
    expect(writeVariant('legal-form-dropped', yamada, 0)).toBe('山田建設');
    expect(writeVariant('legal-form-dropped', company(99, '東京都', 'トウキョウト', 13), 0)).toBeNull();
  });

  it('changes width, kana script, small kana, ヴ and long-vowel marks', () => {
    expect(writeVariant('width', abc, 0)).toBe('ABC商事株式会社');
    expect(writeVariant('width', ale, 0)).toBe('株式会社エール工業');
    expect(writeVariant('width', capital, 0)).toBe('ｷｬﾋﾟﾀﾙｻｰﾋﾞｽ有限会社');
    expect(writeVariant('width', yamada, 0)).toBeNull();
    expect(writeVariant('hiragana', capital, 0)).toBe('きゃぴたるさーびす有限会社');
    expect(writeVariant('small-kana-large', capital, 0)).toBe('キヤピタルサービス有限会社');
    // ヴィ stays: ヴイ reads ブイ, another name
    expect(writeVariant('small-kana-large', venus, 0)).toBeNull();
    expect(writeVariant('vu-as-b', venus, 0)).toBe('ビーナス・ラボ合同会社');
    expect(ways('long-vowel', capital, 3)).toEqual([
      'キャピタルサビス有限会社',
      'キャピタルサｰビス有限会社',
      'キャピタルサ－ビス有限会社',
    ]);
  });

  it('adds and removes separators, swaps old and new kanji, writes 々 out, appends a branch', () => {
    expect(writeVariant('separators', venus, 0)).toBe('ヴィーナスラボ合同会社');
    expect(ways('separators', yamada, 3)).toEqual([
      '株式会社 山田建設',
      '株式会社　山田建設',
      '株式会社山田・建設',
    ]);
    expect(writeVariant('old-new-kanji', takahashi, 0)).toBe('株式会社高橋商事');
    expect(writeVariant('old-new-kanji', fuji, 0)).toBe('株式會社富士交通');
    expect(writeVariant('old-new-kanji', toyoA, 0)).toBe('株式會社東洋物産');
    expect(writeVariant('repeat-mark-written-out', sasaki, 0)).toBe('佐佐木物流株式会社');
    expect(writeVariant('repeat-mark-written-out', yamada, 0)).toBeNull();
    expect(ways('branch-word', yamada, 2)).toEqual(['株式会社山田建設東京支店', '株式会社山田建設本社']);
  });

  it('gives the reading alone, and romaji of the reading in four typings', () => {
    expect(ways('reading-only', yamada, 3)).toEqual([
      'カブシキガイシャヤマダケンセツ',
      'ヤマダケンセツ',
      'かぶしきがいしゃやまだけんせつ',
    ]);
    expect(ways('romaji', fuji, 4)).toEqual(['Fujikotsu', 'Fujikoutsuu', 'Fujikootsuu', 'Huzikoutuu']);
    expect(kanaToRomaji('シャッチョウ', 'hepburn')).toBe('shatcho');
    expect(kanaToRomaji('シャッチョウ', 'kunrei')).toBe('syattyou');
    for (const style of ['hepburn', 'ou', 'oo', 'kunrei'] as const)
      expect(romajiKey(kanaToRomaji('トウキョウシャッチョウジェイワークス', style))).toBe(
        romajiKey(kanaToRomaji('トウキョウシャッチョウジェイワークス', 'hepburn')),
      );
  });

  it('folds every variant back to its company (names by the reference key, readings and romaji by theirs)', () => {
    for (const kind of spellingClasses)
      for (const source of fixture)
        for (let n = 0; n < 4; n++) {
          const name = writeVariant(kind, source, n);
          if (name === null) continue;
          expect(name, `${kind} of ${source.name}`).not.toBe(source.name);
          if (kind === 'reading-only')
            expect(referenceKey(name)).toBe(referenceKey(source.furigana as string));
          else if (kind === 'romaji')
            expect(romajiKey(name)).toBe(
              romajiKey(kanaToRomaji(readingCore(source.furigana as string), 'hepburn')),
            );
          else expect(referenceKey(name), `${kind} ${n}: ${name}`).toBe(referenceKey(source.name));
        }
  });
});

describe('labels', () => {
  const records = makeVariants(fixture, { seed: 1, perClass: 20 });
  const of = (kind: LabelledRecord['kind']) => records.filter((r) => r.kind === kind);

  it('name the company a spelling came from, with the evidence that leaves it alone', () => {
    const unique = new Set(fixture.filter((c) => !c.name.includes('東洋物産')).map((c) => c.corporateNumber));
    for (const kind of spellingClasses)
      for (const record of of(kind)) {
        if (unique.has(record.from as string))
          expect(record.expected, `${kind}: ${record.record.name}`).toBe(record.from);
        // the Tokyo namesakes differ by telephone only: with it each is its own answer
        if (record.from === toyoA.corporateNumber) {
          expect(record.record.phoneNumber).toBe(toyoA.phoneNumber);
          expect(record.expected).toBe(toyoA.corporateNumber);
        }
      }
    expect(of('romaji').length).toBeGreaterThan(5);
  });

  it('are null where no confident match is right, and the right company where the prefecture tells', () => {
    expect(of('namesakes-same-prefecture')).toEqual([
      expect.objectContaining({ record: { name: '株式会社東洋物産', prefectureId: 13 }, expected: null }),
    ]);
    expect(of('namesakes-no-evidence')).toHaveLength(1);
    expect(of('namesakes-no-evidence')[0]?.expected).toBeNull();
    expect(of('namesakes-no-evidence')[0]?.record.prefectureId).toBeUndefined();
    expect(of('namesakes-right-prefecture')).toEqual([
      expect.objectContaining({
        record: { name: '東洋物産株式会社', prefectureId: 27 },
        expected: toyoC.corporateNumber,
      }),
    ]);
    for (const kind of ['one-character-changed', 'same-prefix', 'generic-name'] as const) {
      expect(of(kind).length, kind).toBeGreaterThan(0);
      for (const record of of(kind)) expect(record.expected, `${kind}: ${record.record.name}`).toBeNull();
    }
    for (const record of of('one-character-changed')) {
      const source = fixture.find((c) => c.corporateNumber === record.from) as SampleCompany;
      expect(referenceKey(record.record.name)).not.toBe(referenceKey(source.name));
    }
  });

  it('read a legal form written in kana of either width as that form (a namesake of another form is then no rival)', () => {
    expect(
      [
        '富士物産ｺﾞｳﾄﾞｳｶﾞｲｼｬ',
        'ｶﾌﾞｼｷｶﾞｲｼｬネクスト',
        '桜カブシキガイシャ',
        '桜(同)',
        '㈱桜',
        '桜',
        'カブシキガイシャ',
      ].map(formOf),
    ).toEqual(['合同会社', '株式会社', '株式会社', '合同会社', '株式会社', undefined, undefined]);
  });

  it('are the same for a seed, and another seed draws other records', () => {
    expect(makeVariants(fixture, { seed: 1, perClass: 20 })).toEqual(records);
    expect(makeVariants(fixture, { seed: 2, perClass: 20 })).not.toEqual(records);
  });
});

describe('on a generated sample', () => {
  let records: LabelledRecord[];
  let sample: SampleCompany[];

  beforeAll(async () => {
    const outDir = mkdtempSync(path.join(os.tmpdir(), 'name-variants-'));
    const files = await generateDataSet({
      companies: 1000,
      jobs: 10,
      seed: 42,
      now: new Date('2026-11-21'),
      outDir,
    });
    sample = readFileSync(files.corporates, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as SampleCompany);
    records = makeVariants(sample, { seed: 7, perClass: 100 });
  });

  it('writes every class, labels spellings of a company with that company or null, near misses mostly null', () => {
    for (const kind of [...spellingClasses, ...nearMissClasses])
      expect(records.filter((r) => r.kind === kind).length, kind).toBeGreaterThan(
        kind === 'vu-as-b' || kind === 'repeat-mark-written-out' ? 2 : 10,
      );
    const spellings = records.filter((r) => (spellingClasses as readonly string[]).includes(r.kind));
    for (const record of spellings) expect([record.from, null]).toContain(record.expected);
    // the evidence a company has tells nearly every spelling apart
    expect(spellings.filter((r) => r.expected === r.from).length / spellings.length).toBeGreaterThan(0.97);
    // namesakes: none singled out, unless the record's very legal form does (its own company)
    for (const kind of ['namesakes-same-prefecture', 'namesakes-no-evidence'] as const)
      for (const record of records.filter((r) => r.kind === kind))
        expect([null, record.from]).toContain(record.expected);
    for (const record of records.filter((r) => r.kind === 'generic-name')) expect(record.expected).toBeNull();
    for (const record of records.filter((r) => r.kind === 'namesakes-right-prefecture'))
      expect(record.expected).toBe(record.from);
  });
});
