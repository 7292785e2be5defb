/**
 * The name-matching evaluation's own rules, without an endpoint: the canonical key undoes each
 * CRM class's rule (bench/names/rules.ts), the writers write what their comments say
 * (bench/names/crm-classes.ts), the labels follow the label rule (certain, uncertain, left out,
 * null), the fit and evaluation sets are drawn from disjoint companies, and the outcomes and
 * calibration count what bench/names/outcomes.ts says.
 */
import { describe, expect, it } from 'vitest';
import { scoreMatches } from '../../bench/name-scoring.js';
import type { LabelledRecord, SampleCompany } from '../../bench/name-variants.js';
import {
  crmClasses,
  LabelIndex,
  labelRecord,
  makeCrmRecords,
  writeCrm,
} from '../../bench/names/crm-classes.js';
import { extraCompanies, inFitHalf, makeFitAndEvaluation } from '../../bench/names/generate.js';
import {
  calibration,
  calibrationError,
  calibrationSvg,
  outcomeOf,
  outcomeTable,
} from '../../bench/names/outcomes.js';
import {
  canonicalKey,
  formOf,
  kanjiToNumber,
  latinReadingKey,
  numberToKanji,
  readLetterNames,
  words,
} from '../../bench/names/rules.js';
import { isValidCorporateNumber } from '../../src/text/corporate-number.js';

const company = (
  n: number,
  name: string,
  furigana: string,
  prefectureId: number,
  more: Partial<SampleCompany> = {},
) =>
  ({
    corporateNumber: String(1_000_000_000_000 + n),
    name,
    furigana,
    prefectureId,
    ...more,
  }) satisfies SampleCompany;

const yamada = company(1, '株式会社山田建設', 'カブシキガイシャヤマダケンセツ', 13, {
  phoneNumber: '03-1111-1111',
});
const abc = company(2, 'ＡＢＣ商事株式会社', 'エービーシーショウジカブシキガイシャ', 40);
const toyo = company(3, '東洋ソリューションズ株式会社', 'トウヨウソリューションズカブシキガイシャ', 27);
const daiichi = company(4, '第一物産株式会社', 'ダイイチブッサンカブシキガイシャ', 14);
const sakuraKk = company(5, '株式会社桜学園', 'カブシキガイシャサクラガクエン', 13);
const sakuraSchool = company(6, '学校法人桜学園', 'ガッコウホウジンサクラガクエン', 13);
const asahiA = company(7, '朝日ケアサービス株式会社', 'アサヒケアサービスカブシキガイシャ', 1, {
  phoneNumber: '011-1',
});
const asahiB = company(8, '朝日ケアサービス株式会社', 'アサヒケアサービスカブシキガイシャ', 1, {
  phoneNumber: '011-2',
});
const yamaguchi = company(9, '株式会社山口建設', 'カブシキガイシャヤマグチケンセツ', 13);
const fixture = [yamada, abc, toyo, daiichi, sakuraKk, sakuraSchool, asahiA, asahiB, yamaguchi];

describe('the canonical key undoes each rule', () => {
  it.each([
    ['ＡＢＣ商事株式会社', 'エービーシー商事', 'エイビーシー商事'],
    ['株式会社ＫＳＫ', 'ケイエスケイ', 'KSK Inc.'],
    ['東洋ソリューションズ株式会社', '東洋 Solutions Inc.', '東洋Solutions Co., Ltd.'],
    ['第一物産株式会社', '第1物産', '第１物産'],
    ['二十一世紀商事', '21世紀商事', '２１世紀商事㈱'],
    ['株式会社マルカ', '㈱マルカ', '(ｶ)ﾏﾙｶ'],
    ['マルカ株式会社', 'マルカ㍿', 'ﾏﾙｶ(ｶ)'],
    ['マルカ', 'マ\u200bルカ', '\ufeffマル\u00adカ'],
    ['マルカ', 'マルカ 東京支店', 'マルカ　梅田店'],
    ['マルカ株式会社', 'マルカ株式会社大阪営業部', 'マルカ株式会社事業部'],
    ['A&B商事', 'AアンドB商事', 'AB商事'],
  ])('%s = %s = %s', (a, b, c) => {
    expect(canonicalKey(b)).toBe(canonicalKey(a));
    expect(canonicalKey(c)).toBe(canonicalKey(a));
  });

  it('keeps different names apart', () => {
    expect(canonicalKey('山田建設')).not.toBe(canonicalKey('山口建設'));
    expect(canonicalKey('ABC商事')).not.toBe(canonicalKey('ABD商事'));
    expect(canonicalKey('第一物産')).not.toBe(canonicalKey('第二物産'));
  });

  it('reads numerals, letter names, words and forms', () => {
    expect([
      kanjiToNumber('二十一'),
      kanjiToNumber('十'),
      kanjiToNumber('百五'),
      kanjiToNumber('一〇'),
    ]).toEqual([21, 10, 105, 10]);
    expect([numberToKanji(21), numberToKanji(10), numberToKanji(1999)]).toEqual([
      '二十一',
      '十',
      '千九百九十九',
    ]);
    expect(readLetterNames('エイビーシー')).toBe('ABC');
    expect(readLetterNames('ダブリュエムケー')).toBe('WMK');
    expect(readLetterNames('サクラ')).toBeNull();
    expect(words('朝日ケアサービス')).toEqual(['朝日', 'ケア', 'サービス']);
    expect(words('東洋物産')).toEqual(['東洋', '物産']);
    expect(
      ['(ｶ)ﾏﾙｶ', 'Maruka K.K.', '学校法人桜', '桜(一社)', '桜', '桜株式会社 渋谷営業所', '桜東京支店'].map(
        formOf,
      ),
    ).toEqual(['kk', 'kk', 'gakko', 'shadan', null, 'kk', null]);
    expect(latinReadingKey('Toyo Solutions Inc.')).toBe(latinReadingKey('toyosoryushonzu'));
  });
});

describe('the CRM writers', () => {
  const name = (kind: Parameters<typeof writeCrm>[0], source: SampleCompany, n = 0) =>
    writeCrm(kind, source, n)?.name ?? null;

  it('write what their rules say', () => {
    expect(name('letters-as-letter-names', abc)).toBe('エービーシー商事株式会社');
    expect(name('letter-names-variant-spelling', abc)).toBe('エイビーシー商事株式会社');
    expect(name('loanword-as-english', toyo)).toBe('東洋Solutions株式会社');
    expect(name('loanword-as-english', toyo, 1)).toBe('東洋 Solutions株式会社');
    expect(name('numerals-as-digits', daiichi)).toBe('第1物産株式会社');
    expect(name('numerals-as-digits', daiichi, 1)).toBe('第１物産株式会社');
    expect(name('latin-legal-suffix', toyo)).toBe('Toyo Solutions Inc.');
    expect(name('legal-form-square', yamada)).toBe('㍿山田建設');
    expect(name('bank-transfer-kana', yamada)).toBe('(ｶ)ﾔﾏﾀﾞｹﾝｾﾂ');
    expect(name('bank-transfer-kana', toyo)).toBe('ﾄｳﾖｳｿﾘﾕ-ｼﾖﾝｽﾞ(ｶ)');
    expect(name('reading-partly-kanji', yamada)).toBe('株式会社ヤマダ建設');
    expect(name('reading-partly-kanji', yamada, 2)).toBe('株式会社山田ケンセツ');
    expect(name('typo-swapped', yamada)).toBe('株式会社田山建設');
    expect(name('word-dropped', asahiA)).toBe('朝日ケア株式会社');
    expect(writeCrm('corporate-number-written', yamada, 0)).toEqual({
      name: '株式会社山田建設',
      corporateNumber: '1000-0000-0000-1',
      bare: true,
    });
  });
});

describe('labels', () => {
  const index = new LabelIndex(fixture);

  it('a same-name spelling of a company alone in its name is that company, certain', () => {
    const label = labelRecord(index, 'letters-as-letter-names', abc, { name: 'エービーシー商事株式会社' }, 0);
    expect(label).toMatchObject({ expected: abc.corporateNumber, from: abc.corporateNumber, certain: true });
  });

  it('the legal form a record states decides between two companies of one core name', () => {
    const label = labelRecord(index, 'legal-form-decides', sakuraSchool, { name: '学校法人桜学園' }, 0);
    expect(label?.expected).toBe(sakuraSchool.corporateNumber);
    // without a form both remain and the prefecture does not tell them apart
    const bare = labelRecord(index, 'department-word', sakuraKk, { name: '桜学園本社' }, 0);
    expect(bare?.expected).toBeNull();
    // a form before a department written after the name still decides
    const branch = labelRecord(index, 'department-word', sakuraKk, { name: '桜学園株式会社東京支店' }, 0);
    expect(branch?.expected).toBe(sakuraKk.corporateNumber);
  });

  it('namesakes: the telephone tells them apart, or the label is null', () => {
    const label = labelRecord(
      index,
      'invisible-characters',
      asahiA,
      { name: '朝日ケア\u200bサービス株式会社' },
      0,
    );
    expect(label?.record.phoneNumber).toBe(asahiA.phoneNumber);
    expect(label?.expected).toBe(asahiA.corporateNumber);
    const withoutPhone = new LabelIndex(fixture.map((c) => ({ ...c, phoneNumber: null })));
    const source = { ...asahiA, phoneNumber: null };
    expect(
      labelRecord(withoutPhone, 'invisible-characters', source, { name: '朝日ケアサービス' }, 0)?.expected,
    ).toBeNull();
  });

  it('a corporate number in any writing is the company, whatever the name', () => {
    const label = labelRecord(
      index,
      'corporate-number-written',
      asahiB,
      { name: '朝日ケアサービス', corporateNumber: 'T1', bare: true },
      0,
    );
    expect(label).toMatchObject({
      expected: asahiB.corporateNumber,
      certain: true,
      record: { corporateNumber: 'T1' },
    });
  });

  it('a typo is uncertain, and left out when another name is as near', () => {
    const typo = labelRecord(index, 'typo-replaced', toyo, { name: '東西ソリューションズ株式会社' }, 0);
    expect(typo).toMatchObject({ expected: toyo.corporateNumber, certain: false });
    // 山田建設 -> 山口建設 is another company; 山川建設 is one edit from both
    expect(labelRecord(index, 'typo-replaced', yamada, { name: '株式会社山口建設' }, 0)).toBeNull();
    expect(labelRecord(index, 'typo-replaced', yamada, { name: '株式会社山川建設' }, 0)).toBeNull();
    // a shortened name another name starts with is left out too
    expect(labelRecord(index, 'word-dropped', yamada, { name: '株式会社山' }, 0)).toBeNull();
  });

  it('names of no company are null; every class has records over a sample with its extra companies', () => {
    const extra = extraCompanies(fixture, 1, 4);
    for (const added of extra) expect(isValidCorporateNumber(added.corporateNumber)).toBe(true);
    const records = makeCrmRecords([...fixture, ...extra], { seed: 1, perClass: 5 });
    for (const record of records.filter((r) => r.kind === 'name-of-no-company'))
      expect(record).toMatchObject({ expected: null, from: null, certain: true });
    const kinds = new Set(records.map((r) => r.kind));
    for (const kind of crmClasses.filter((k) => !['reading-partly-kanji'].includes(k)))
      expect(kinds.has(kind), kind).toBe(true);
    expect(makeCrmRecords([...fixture, ...extra], { seed: 1, perClass: 5 })).toEqual(records);
  });
});

describe('the fit and evaluation sets', () => {
  const many = Array.from({ length: 300 }, (_, n) =>
    company(
      100 + n,
      `株式会社${['山田', '東洋', '朝日'][n % 3]}${['建設', '物産', 'ケアサービス', '商事'][n % 4]}${n}`,
      'カブシキガイシャヤマダ',
      1 + (n % 47),
    ),
  );

  it('are written from disjoint companies, each the same for its seed', () => {
    const { fit, evaluation } = makeFitAndEvaluation(many, { fitSeed: 1, evaluationSeed: 2, perClass: 10 });
    const fitFrom = new Set(fit.map((r) => r.from).filter((f) => f !== null));
    const evaluationFrom = new Set(evaluation.map((r) => r.from).filter((f) => f !== null));
    expect(fitFrom.size).toBeGreaterThan(20);
    expect(evaluationFrom.size).toBeGreaterThan(20);
    for (const from of fitFrom) expect(evaluationFrom.has(from)).toBe(false);
    for (const from of fitFrom) expect(inFitHalf(from as string)).toBe(true);
    expect(makeFitAndEvaluation(many, { fitSeed: 1, evaluationSeed: 2, perClass: 10 }).fit).toEqual(fit);
  });
});

describe('outcomes and calibration', () => {
  const entry = (expected: string | null, certain = true): LabelledRecord => ({
    kind: 'width',
    record: { name: 'x' },
    expected,
    from: expected,
    certain,
  });
  const candidate = (corporateNumber: string, score: number, confidence?: number) => ({
    corporateNumber,
    score,
    ...(confidence === undefined ? {} : { confidence }),
  });

  it('gives each record one outcome', () => {
    expect(outcomeOf(entry('A'), { match: candidate('A', 1), candidates: [] })).toBe('rightMatch');
    expect(outcomeOf(entry('A'), { match: candidate('B', 1), candidates: [] })).toBe('wrongMatch');
    expect(outcomeOf(entry(null), { match: candidate('B', 1), candidates: [] })).toBe('wrongMatch');
    expect(outcomeOf(entry(null), { match: null, candidates: [candidate('B', 0.8)] })).toBe('rightNull');
    const six = ['B', 'C', 'D', 'E', 'F', 'A'].map((c) => candidate(c, 0.5));
    expect(outcomeOf(entry('A'), { match: null, candidates: six.slice(-5) })).toBe('inCandidates');
    expect(outcomeOf(entry('A'), { match: null, candidates: six })).toBe('absent');
    expect(outcomeOf(entry('A'), { match: null })).toBe('absent');
    const table = outcomeTable(
      [entry('A'), entry('A', false)],
      [{ match: null, candidates: [] }, { match: null }],
    );
    expect(table.total).toMatchObject({ records: 2, labelled: 2, uncertain: 1, absent: 2 });
  });

  it('bands candidates by confidence (score when there is none) and counts the right ones', () => {
    const bands = calibration(
      [entry('A'), entry('A'), entry(null)],
      [
        { match: candidate('A', 1), candidates: [candidate('A', 1), candidate('B', 0.8, 0.05)] },
        { match: null, candidates: [candidate('B', 0.8, 0.95), candidate('A', 0.8, 0.93)] },
        { match: null, candidates: [candidate('C', 0.85)] },
      ],
    );
    expect(bands).toHaveLength(10);
    expect(bands[9]).toMatchObject({
      from: 0.9,
      to: 1,
      candidates: 3,
      right: 2,
      shareRight: 0.6667,
      gap: -0.2833,
    });
    expect(bands[8]).toMatchObject({ candidates: 1, right: 0, shareRight: 0, gap: -0.85 });
    expect(bands[0]).toMatchObject({ candidates: 1, right: 0, gap: -0.05 });
    expect(bands[5]).toMatchObject({ candidates: 0, shareRight: null, gap: null });
    expect(calibrationError(bands)).toBeCloseTo((3 * 0.2833 + 0.85 + 0.05) / 5, 3);
    const svg = calibrationSvg(bands, 'test');
    expect(svg).toMatch(/^<svg /);
    expect(svg.match(/<circle /g)).toHaveLength(3);
    expect(svg).toContain('stroke-dasharray');
  });

  it('the old table counts an uncertain record as due only when matched', () => {
    const table = scoreMatches(
      [entry('A', false), entry('A', false), entry('A', false)],
      [{ match: { corporateNumber: 'A' } }, { match: null }, { match: { corporateNumber: 'B' } }],
    );
    expect(table.total).toMatchObject({
      expectCompany: 1,
      matchedRight: 1,
      nullRight: 1,
      nullMissed: 0,
      matchedWrong: 1,
    });
  });
});
