/**
 * Reading and romaji keys (src/names/keys.ts), the keys of a typed query, and readings
 * derived from names (src/names/reading.ts). Expected values are written out by hand: how
 * furigana is filed (registry, bank transfers) and how people type romaji.
 */
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { evidenceOf, wantsDerivedReading, withDerivedReading } from '../../src/names/evidence.js';
import { forgetNameTables, queryKeys, readingKey, romajiKey } from '../../src/names/keys.js';
import { buildReadingAnalyser, loadReadingAnalyser, type ReadingAnalyser } from '../../src/names/reading.js';

// the tables are read again in each test, so a mutation run checks them with every test here
beforeEach(forgetNameTables);

function expectAll(fn: (text: string) => string, rows: Array<[key: string, ...inputs: string[]]>): void {
  for (const [key, ...inputs] of rows) for (const input of inputs) expect(fn(input), input).toBe(key);
}

describe('readingKey', () => {
  it('folds scripts, widths, small kana, ヴ, long-vowel marks and separators as the name key does', () => {
    expectAll(readingKey, [
      [
        'まるかぶつりゆう',
        'マルカブツリュウ',
        'ﾏﾙｶﾌﾞﾂﾘｭｳ',
        'まるかぶつりゅう',
        'マルカ ブツリュウ',
        'マルカ・ブツリユウ',
      ],
      ['びれつじ', 'ヴィレッジ', 'ビレッジ', 'ｳﾞｨﾚｯｼﾞ'],
      ['こんぴゆた', 'コンピューター', 'コンピュータ', 'ｺﾝﾋﾟｭｰﾀｰ'],
    ]);
  });

  it('drops the reading of a legal form at the start or the end', () => {
    expectAll(readingKey, [
      [
        'まるか',
        'カブシキガイシャマルカ',
        'マルカ',
        'マルカカブシキガイシャ',
        'ｶﾌﾞｼｷｶﾞｲｼｬ ﾏﾙｶ',
        'カブシキカイシャ マルカ',
        'ｶ)ﾏﾙｶ',
        'ﾏﾙｶ(ｶ',
      ],
      ['やまだしようてん', 'ユウゲンガイシャヤマダショウテン', 'ﾕ)ﾔﾏﾀﾞｼﾖｳﾃﾝ'],
      ['つばさ', 'ゴウドウガイシャツバサ', 'ゴウドウカイシャツバサ', 'ﾄﾞ)ﾂﾊﾞｻ'],
      ['たなかや', 'ゴウシカイシャタナカヤ', 'タナカヤゴウメイガイシャ', 'タナカヤ ユウゲンカイシャ'],
      ['', 'カブシキガイシャ'],
      // the other legal forms' readings, as the registry's furigana carries them
      ['にほんぶつりゆう', 'イッパンシャダンホウジンニホンブツリュウ', 'ニホンブツリュウ'],
      ['かんさいかんこう', 'トクテイヒエイリカツドウホウジンカンサイカンコウ', 'カンサイカンコウ'],
      [
        'とうほくしよくひん',
        'イッパンザイダンホウジントウホクショクヒン',
        'コウエキザイダンホウジントウホクショクヒン',
      ],
      ['みらい', 'ガッコウホウジンミライ', 'シャカイフクシホウジンミライ', 'イリョウホウジンシャダンミライ'],
    ]);
  });

  it('keeps readings that differ apart', () => {
    for (const [a, b] of [
      ['トウヨウ', 'トウヨウイ'],
      ['サイトウ', 'サトウ'],
      ['キャノン', 'キノン'],
    ])
      expect(readingKey(a ?? ''), `${a} / ${b}`).not.toBe(readingKey(b ?? ''));
  });
});

describe('romajiKey', () => {
  it('the spellings people type of one reading give one key', () => {
    expectAll(romajiKey, [
      [
        'marukabuturyu',
        'マルカブツリュウ',
        'ｶﾌﾞｼｷｶﾞｲｼｬ ﾏﾙｶﾌﾞﾂﾘｭｳ',
        'Maruka Butsuryu',
        'marukabutsuryuu',
        'MARUKA BUTURYU',
        'Maruka Butsuryū',
        'Maruka Butsuryu Co., Ltd.',
      ],
      ['tokyo', 'トウキョウ', 'Tokyo', 'Tōkyō', 'toukyou', 'tookyoo', 'TOHKYOH', 'トーキョー'],
      ['ono', 'Ohno', 'Ōno', 'ono', 'オオノ'],
      ['sinbasi', 'シンバシ', 'Shimbashi', 'Shinbashi', 'sinbasi', 'SHINBASHI'],
      ['hukuti', 'フクチ', 'Fukuchi', 'hukuti'],
      ['tutumi', 'ツツミ', 'Tsutsumi', 'tutumi'],
      ['zyunkyu', 'ジュンキュウ', 'junkyuu', 'zyunkyu', 'jyunkyu'],
      ['syoka', 'ショウカ', 'shoka', 'syouka', 'Shōka'],
      ['matya', 'マッチャ', 'matcha', 'maccha', 'mattya'],
      ['hokaido', 'ホッカイドウ', 'Hokkaido', 'hokkaidou', 'Hokkaidō'],
      ['sanpo', 'サンポウ', 'sampo', 'sanpo', 'sanpou'],
      ['kanei', 'カンエイ', "kan'ei", 'kanei'],
      // loan-word sounds as typed: ディ di, ティ ti, トゥ tu
      ['toredingu', 'トレーディング', 'Toredingu', 'toreedingu'],
      ['byuti', 'ビューティー', 'byuti', 'Byuutii'],
      ['tuna', 'トゥナ', 'tuna'],
      ['rifomu', 'リフォーム', 'rifomu', 'Rifoomu'],
      ['binasu', 'ヴィーナス', 'Vinasu', 'binasu'],
    ]);
  });

  it('has no key for text that is neither kana nor Latin', () => {
    expectAll(romajiKey, [['', '丸加物流', 'マルカ物流', '株式会社', '']]);
  });
});

describe('queryKeys', () => {
  it('the name key always, the reading key for kana, the romaji key for Latin letters', () => {
    expect(queryKeys('㈱マルカ')).toEqual({ name: 'まるか', reading: 'まるか' });
    expect(queryKeys('ﾏﾙｶﾌﾞﾂﾘｭｳ')).toEqual({ name: 'まるかぶつりゆう', reading: 'まるかぶつりゆう' });
    expect(queryKeys('マルカ物流株式会社')).toEqual({ name: 'まるか物流' });
    expect(queryKeys('Maruka Butsuryu Co., Ltd.')).toEqual({
      name: 'marukabutsuryu',
      romaji: 'marukabuturyu',
    });
    expect(queryKeys('Sony Group')).toEqual({ name: 'sonygroup', romaji: 'sonygrop' });
    expect(queryKeys('ABCマート')).toEqual({ name: 'abcまと' });
    expect(queryKeys('株式会社')).toEqual({ name: '' });
  });
});

describe('readings derived from names', () => {
  let analyser: ReadingAnalyser;
  beforeAll(async () => {
    analyser = await loadReadingAnalyser();
  });

  it('reads a name word by word, old kanji through their common form', () => {
    expect(analyser.reading('マルカ物流株式会社')).toBe('マルカブツリュウカブシキガイシャ');
    expect(analyser.reading('東京海上日動火災保険')).toBe('トウキョウカイジョウニチドウカサイホケン');
    expect(analyser.reading('髙島屋')).toBe(analyser.reading('高島屋'));
    expect(analyser.reading('ABCマート')).toBeUndefined();
    expect(analyser.reading('Sony Group')).toBeUndefined();
    expect(analyser.reading('みなと　ふぁーむ')).toBe('ミナトファーム');
    // (株) is 株式会社, not カブ
    expect(analyser.reading('㈱マルカ物流')).toBe('カブシキガイシャマルカブツリュウ');
    expect(analyser.reading('マルカ物流（有）')).toBe('マルカブツリュウユウゲンカイシャ');
  });

  it('a derived reading meets the furigana through the reading key', () => {
    expect(readingKey(analyser.reading('㈱マルカ物流') ?? '')).toBe(readingKey('ｶﾌﾞｼｷｶﾞｲｼｬ ﾏﾙｶﾌﾞﾂﾘｭｳ'));
  });

  it('a record written partly in its reading gets the reading of the whole name; others keep theirs', () => {
    const derived = (name: string) => withDerivedReading(evidenceOf({ name }), name, analyser).keys;
    // トウヨウ物産: kana and kanji; read whole, it meets 東洋物産's reading key
    expect(derived('トウヨウ物産株式会社').reading).toBe(readingKey('トウヨウブッサン'));
    expect(
      withDerivedReading(evidenceOf({ name: 'トウヨウ物産' }), 'トウヨウ物産', analyser).readingDerived,
    ).toBe(true);
    expect(evidenceOf({ name: 'トウヨウ物産' }).readingDerived).toBeUndefined();
    expect(derived('東洋ぶっさん').reading).toBe(readingKey('トウヨウブッサン'));
    // kana alone have their own reading; kanji alone and Latin are compared as written
    expect(derived('マルカブツリュウ').reading).toBe(queryKeys('マルカブツリュウ').reading);
    expect(wantsDerivedReading(evidenceOf({ name: '東洋物産株式会社' }))).toBe(false);
    expect(derived('東洋物産株式会社').reading).toBeUndefined();
    expect(derived('NOVA Systems').reading).toBeUndefined();
    // a word the dictionary cannot read (Latin inside): no reading rather than a part of one
    expect(derived('ABCマート本舗').reading).toBeUndefined();
    // a name that names no one company is not looked up at all
    expect(wantsDerivedReading(evidenceOf({ name: '株式会社' }))).toBe(false);
  });

  it('is loaded once per process', async () => {
    expect(await loadReadingAnalyser()).toBe(analyser);
  });

  it('a dictionary that cannot be read is an error, not an analyser that reads nothing', async () => {
    await expect(buildReadingAnalyser('/nonexistent/kuromoji-dict')).rejects.toThrow();
  });
});
