/**
 * The small text rules matching and the indexer rely on, asserted exactly: the corporate
 * number's check digit (published numbers), and what an address, a phone number and a website
 * say about a company (src/text/address.ts). Written against the mutants Stryker left without
 * a test in the text module (docs/mutation.md).
 */
import { beforeEach, describe, expect, it } from 'vitest';
import {
  forgetNameTables,
  legalForms,
  nameKey,
  queryKeys,
  readingKey,
  romajiKey,
  spellOutLegalForms,
} from '../../src/names/keys.js';
import { foldAddress, parseAddress, phoneDigits, websiteHost } from '../../src/text/address.js';
import { corporateCheckDigit, isValidCorporateNumber } from '../../src/text/corporate-number.js';

// the tables are read again in each test, so a mutation run checks them with every test here
beforeEach(forgetNameTables);

describe('corporate number', () => {
  it('the check digit of published numbers (国税庁, トヨタ自動車, ソニーグループ)', () => {
    expect(corporateCheckDigit('000012050002')).toBe(7);
    expect(corporateCheckDigit('180301018771')).toBe(1);
    expect(corporateCheckDigit('010401067252')).toBe(5);
    // a sum that is a multiple of 9 gives 9, never 0
    expect(corporateCheckDigit('000000000000')).toBe(9);
    expect(corporateCheckDigit('000000000009')).toBe(9);
    // odd places from the right weigh 1, even places 2
    expect(corporateCheckDigit('000000000001')).toBe(8);
    expect(corporateCheckDigit('000000000010')).toBe(7);
    expect(corporateCheckDigit('100000000000')).toBe(7);
  });

  it('valid: 13 digits, the first the check digit of the other 12', () => {
    for (const n of ['7000012050002', '1180301018771', '5010401067252'])
      expect(isValidCorporateNumber(n)).toBe(true);
    for (const n of [
      '6000012050002', // wrong check digit
      '700001205000', // 12 digits
      '70000120500021', // 14 digits
      '77000012050002', // 14 digits whose first is the check digit of the next 12
      '0000000000000', // a check digit is never 0
      ' 7000012050002',
      '7000012050002 ',
      '7OOOO12050002',
    ])
      expect(isValidCorporateNumber(n), n).toBe(false);
  });
});

describe('address', () => {
  it('the prefecture at the start, the postcode dropped, the rest folded', () => {
    expect(parseAddress('〒150-0043 東京都渋谷区道玄坂１－２－３')).toEqual({
      prefectureId: 13,
      rest: '渋谷区道玄坂1-2-3',
    });
    expect(parseAddress('1500043東京都 渋谷区')).toEqual({ prefectureId: 13, rest: '渋谷区' });
    expect(parseAddress('北海道札幌市')).toEqual({ prefectureId: 1, rest: '札幌市' });
    expect(parseAddress('京都府京都市')).toEqual({ prefectureId: 26, rest: '京都市' });
    expect(parseAddress('沖縄県那覇市')).toEqual({ prefectureId: 47, rest: '那覇市' });
  });

  it('no prefecture: the whole folded text is the rest', () => {
    expect(parseAddress('渋谷区 道玄坂')).toEqual({ rest: '渋谷区道玄坂' });
    expect(parseAddress('東京渋谷区')).toEqual({ rest: '東京渋谷区' });
  });

  it('folding: NFKC, every space dropped', () => {
    expect(foldAddress(' 東京都　渋谷区 ｱ１ ')).toBe('東京都渋谷区ア1');
  });

  it('phone digits: width folded, +81 as the leading 0', () => {
    expect(phoneDigits('+81 3-1234-5678')).toBe('0312345678');
    expect(phoneDigits('＋８１ ３ １２３４ ５６７８')).toBe('0312345678');
    expect(phoneDigits(' 03(1234)5678 ')).toBe('0312345678');
    expect(phoneDigits('０１２０-１２３-４５６')).toBe('0120123456');
  });

  it('website host: lower case, www. dropped, with or without a scheme; not a URL: none', () => {
    expect(websiteHost('https://WWW.Example.jp/a')).toBe('example.jp');
    expect(websiteHost('www.example.co.jp')).toBe('example.co.jp');
    expect(websiteHost(' ｅｘａｍｐｌｅ．ｊｐ/path ')).toBe('example.jp');
    expect(websiteHost('HTTP://shop.example.jp:8080')).toBe('shop.example.jp');
    expect(websiteHost('wwwexample.jp')).toBe('wwwexample.jp');
    expect(websiteHost('')).toBeUndefined();
    expect(websiteHost('   ')).toBeUndefined();
    expect(websiteHost('http://')).toBeUndefined();
  });
});

describe('name keys: the edges of the character rules', () => {
  it('a variant outside the BMP (a surrogate pair) folds as one character, wherever it stands', () => {
    expect(nameKey('𠮷野家')).toBe('吉野家');
    expect(nameKey('ａ𠮷ｂ')).toBe('a吉b');
    expect(readingKey('𠮷')).toBe('吉');
  });

  it('katakana to hiragana up to ヶ (the last of the block), ヽ ヾ as ゝ ゞ', () => {
    expect([nameKey('ヶ丘'), nameKey('ゖ丘'), nameKey('ケ丘')]).toEqual(['け丘', 'け丘', 'け丘']);
    expect(nameKey('さヽき')).toBe('ささき');
    expect(nameKey('いすヾ')).toBe('いすず');
    expect(nameKey('ヴヶ')).toBe('ぶけ');
  });

  it('iteration marks: 々 after a kanji only; ゝ after a kana; ゞ voiced where the kana has a voiced form', () => {
    expect(nameKey('佐々木')).toBe('佐佐木');
    expect(nameKey('々木')).toBe('々木');
    expect(nameKey('はゞ')).toBe('はば');
    expect(nameKey('あゞ')).toBe('ああ');
    expect(nameKey('Aゞ')).toBe('aゞ');
    expect(romajiKey('いすゞ')).toBe('isuzu');
  });

  it('a glued branch is dropped only with two characters of name left; readings keep it', () => {
    expect(nameKey('ああ大阪営業所')).toBe('ああ');
    expect(nameKey('あ大阪営業所')).toBe('あ大阪営業所');
    expect(readingKey('ああ大阪営業所')).toBe('ああ大阪営業所');
  });

  it('a branch dropped brings a legal form to the end, which goes next round', () => {
    expect(nameKey('まるか協同組合 本店')).toBe('まるか');
    expect(readingKey('まるか協同組合 本店')).toBe('まるか協同組合本店');
  });

  it('romaji: a run of one vowel or one consonant, however long, is one letter', () => {
    expect([romajiKey('Saaato'), romajiKey('Sato')]).toEqual(['sato', 'sato']);
    expect([romajiKey('Nippppon'), romajiKey('Nipon')]).toEqual(['nipon', 'nipon']);
  });

  it('legalForms finds a form that a dropped branch brings to the end', () => {
    expect(legalForms('まるか協同組合 本店')).toEqual(['協同組合']);
    expect(legalForms('株式会社まるか 東京支店')).toEqual(['株式会社']);
  });
});

describe('name keys: the rules built from the tables (data/names/)', () => {
  it('a table is its data rows: no blank line is a branch word, no header row a legal form', () => {
    // a blank branch word would make any place after a separator a branch ('大阪' dropped)
    expect(nameKey('マルカ物流 大阪')).toBe('まるか物流大阪');
    // the header row of legal-forms.tsv reads 'from': a legal form it would make
    expect(nameKey('From Japan Co., Ltd.')).toBe('fromjapan');
  });

  it('a Latin form stands as a word on both sides; a Japanese form needs no space around it', () => {
    expect(nameKey('TOTO株式会社')).toBe('toto');
    expect(nameKey('株式会社IHI')).toBe('ihi');
    expect(nameKey('NPO法人ASUKA')).toBe('asuka');
    expect(nameKey('Kabushiki Kaishaya')).toBe('kabushikikaishaya');
    expect(nameKey('Kabushiki Kaisha Ya')).toBe('ya');
  });

  it('an end-only form elsewhere is part of the name; a form allowed anywhere goes in the middle too', () => {
    expect(nameKey('Limited Express Co., Ltd.')).toBe('limitedexpress');
    expect(legalForms('Limited Express Co., Ltd.')).toEqual(['株式会社']);
    expect(nameKey('マルカ(株)物流センター')).toBe('まるか物流せんた');
  });

  it('a dropped legal form leaves a separator: a branch written straight after it goes', () => {
    // 本店 glued to a name stays (〇〇本店 is a name); after the legal form it is the branch
    expect(nameKey('マルカ物流本店')).toBe('まるか物流本店');
    expect(nameKey('マルカ物流株式会社本店')).toBe('まるか物流');
  });

  it('invisible characters (zero-width space, soft hyphen) are dropped, not kept as letters', () => {
    expect(nameKey('マルカ\u200b物流')).toBe('まるか物流');
    expect(nameKey('Maru\u00adka')).toBe('maruka');
  });

  it('the key is taken again until it stops changing (the fast-check counterexample of seed 1550699238)', () => {
    // one pass of the reading key leaves 協同協同組合: its end separators dropped, 協同組合
    // is at the end
    expect(readingKey('協同協同組合協同組合inc(ｶ株式会社')).toBe('協同');
    expect(nameKey('協同協同組合協同組合inc(ｶ株式会社')).toBe('協同');
  });

  it('the bracketed abbreviations are written out for the reading analyser, every one, and nothing else', () => {
    expect(spellOutLegalForms('(一社)日本IPO協会')).toBe('一般社団法人日本IPO協会');
    expect(spellOutLegalForms('㈱マルカ（有）')).toBe('株式会社マルカ有限会社');
    expect(spellOutLegalForms('マルカ Co., Ltd.')).toBe('マルカ Co., Ltd.');
    expect(spellOutLegalForms('ｶ)ﾏﾙｶ')).toBe('カ)マルカ');
  });

  it('romaji keys only of kana or Latin text; a typed query gets none when its romaji has a branch', () => {
    expect(romajiKey('ABCマート')).toBe('');
    expect(romajiKey('第2物流')).toBe('');
    expect(queryKeys('ABC 東京支店')).toEqual({ name: 'abc' });
    expect(queryKeys('ABC')).toEqual({ name: 'abc', romaji: 'abc' });
  });
});
