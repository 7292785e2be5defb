/**
 * The company name key (src/names/keys.ts, docs/names.md), one table per class of folding.
 * Every expected value is written out by hand from how Japanese company names are actually
 * spelled (registry, CRM lists, bank transfers, business cards); none is computed with the
 * key itself. "same" tables hold spellings of one company; "different" tables hold names of
 * different companies that a careless fold would merge.
 */
import fc from 'fast-check';
import { beforeEach, describe, expect, it } from 'vitest';
import {
  forgetNameTables,
  legalForms,
  nameKey,
  nameKeyAndForms,
  readingKey,
  romajiKey,
  spokenKey,
} from '../../src/names/keys.js';
import { propertyParams } from '../support/fast-check.js';

// the tables are read again in each test, so a mutation run checks them with every test here
beforeEach(forgetNameTables);

/** Each row: spellings of one company, and the key they all give. */
function expectKeys(rows: Array<[key: string, ...spellings: string[]]>): void {
  for (const [key, ...spellings] of rows)
    for (const spelling of spellings) expect(nameKey(spelling), spelling).toBe(key);
}

function expectDifferent(rows: Array<[string, string]>): void {
  for (const [a, b] of rows) expect(nameKey(a), `${a} / ${b}`).not.toBe(nameKey(b));
}

describe('legal forms are dropped wherever they stand', () => {
  it('株式会社 written out, abbreviated, as one character, in kana, before or after', () => {
    expectKeys([
      [
        'まるか物流',
        'マルカ物流',
        '株式会社マルカ物流',
        'マルカ物流株式会社',
        '株式会社　マルカ物流',
        '㈱マルカ物流',
        'マルカ物流㈱',
        '(株)マルカ物流',
        'マルカ物流(株)',
        '（株）マルカ物流',
        'マルカ物流（株）',
        '( 株 )マルカ物流',
        'カブシキガイシャマルカ物流',
        'ｶﾌﾞｼｷｶﾞｲｼｬ ﾏﾙｶ物流',
        'マルカ物流 カブシキカイシャ',
        '株 式 会 社 マルカ物流',
      ],
    ]);
  });

  it('every other kind of company and corporation, written out and abbreviated', () => {
    expectKeys([
      ['やまだ商店', '有限会社ヤマダ商店', '㈲ヤマダ商店', 'ヤマダ商店(有)', 'ユウゲンガイシャ ヤマダ商店'],
      ['つばさ', '合同会社ツバサ', 'ツバサ合同会社', 'ツバサ(同)', 'ゴウドウガイシャツバサ'],
      ['鈴木酒造', '合名会社鈴木酒造', '鈴木酒造(名)', '㈴鈴木酒造'],
      ['田中屋', '合資会社田中屋', '(資)田中屋', '㈾田中屋'],
      ['日本ipo協会', '一般社団法人日本IPO協会', '(一社)日本IPO協会', '日本IPO協会'],
      ['みどり財団', '一般財団法人みどり財団', '(一財)みどり財団'],
      [
        '日本看護協会',
        '公益社団法人日本看護協会',
        '(公社)日本看護協会',
        '社団法人日本看護協会',
        '㈳日本看護協会',
      ],
      ['がん研究会', '公益財団法人がん研究会', '(公財)がん研究会', '財団法人がん研究会', '㈶がん研究会'],
      ['健康会', '医療法人健康会', '医療法人社団健康会', '医療法人財団 健康会', '(医)健康会', '健康会(医)'],
      ['あおば会', '社会福祉法人あおば会', '(福)あおば会', '(社福)あおば会'],
      ['ふるさと', '特定非営利活動法人ふるさと', 'NPO法人ふるさと', 'ＮＰＯ法人 ふるさと', '(特非)ふるさと'],
      ['みなと学園', '学校法人みなと学園', '(学)みなと学園', '㈻みなと学園'],
      ['みなと青果', 'みなと青果協同組合', '協同組合みなと青果', '(協)みなと青果'],
    ]);
  });

  it('Latin legal forms, as whole words after the name', () => {
    expectKeys([
      [
        'marukabutsuryu',
        'Maruka Butsuryu Co., Ltd.',
        'Maruka Butsuryu Co.,Ltd.',
        'MARUKA BUTSURYU CO.,LTD',
        'Maruka Butsuryu Inc.',
        'Maruka Butsuryu K.K.',
        'Maruka Butsuryu Corporation',
        'Maruka Butsuryu Corp.',
        'Maruka Butsuryu LLC',
        'Maruka Butsuryu Ltd.',
        'Maruka Butsuryu Kabushiki Kaisha',
        'Kabushiki Kaisha Maruka Butsuryu',
      ],
      ['sonygroup', 'Sony Group Corporation', 'Sony Group', 'SONY GROUP CORP.'],
      ['まるか物流', 'マルカ物流 Co., Ltd.', 'マルカ物流Inc.'],
    ]);
  });

  it('bank-transfer (zengin) kana abbreviations, at their end of the name only', () => {
    expectKeys([
      ['まるかぶつりゆう', 'ｶ)ﾏﾙｶﾌﾞﾂﾘﾕｳ', 'ﾏﾙｶﾌﾞﾂﾘﾕｳ(ｶ', 'マルカブツリュウ'],
      ['やまだしようてん', 'ﾕ)ﾔﾏﾀﾞｼﾖｳﾃﾝ', 'ﾔﾏﾀﾞｼﾖｳﾃﾝ(ﾕ'],
    ]);
  });

  it('not stripped where the words are part of the name', () => {
    expectKeys([
      // only a legal form: nothing left, the key matches nothing
      ['', '株式会社', '㈱', '有限会社', '(株)', 'Co., Ltd.', '協同組合'],
      // 協同組合 inside a federation's name is not its legal form
      ['全国農業協同組合連合会', '全国農業協同組合連合会'],
      // 'inc' and 'co' inside a word
      ['zinc', 'Zinc Inc.', 'ZINC'],
      ['costco', 'Costco'],
      ['incubatefund', 'Incubate Fund'],
      ['marco', 'Marco'],
      // 株式 alone, or 会社 inside a word, is not a legal form
      ['株式新聞社', '株式新聞社'],
      ['不動産会社なび', '不動産会社ナビ'],
      // zengin abbreviations only at their own end: カ) inside the name stays
      ['あかまるか', 'アカ)マルカ'],
    ]);
  });

  it('株式会社A and 有限会社A give one key; legalForms tells them apart', () => {
    expect(nameKey('株式会社マルカ')).toBe(nameKey('有限会社マルカ'));
    expect(legalForms('株式会社マルカ')).toEqual(['株式会社']);
    expect(legalForms('㈲マルカ 本店')).toEqual(['有限会社']);
    expect(legalForms('Maruka Co., Ltd.')).toEqual(['株式会社']);
    expect(legalForms('ｶ)ﾏﾙｶ')).toEqual(['株式会社']);
    expect(legalForms('医療法人社団 健康会')).toEqual(['医療法人']);
    expect(legalForms('マルカ')).toEqual([]);
    expect(legalForms('全国農業協同組合連合会')).toEqual([]);
  });

  it('the key and the forms from one folding are the name key and the legal forms', () => {
    expect(nameKeyAndForms('㈲マルカ 本店')).toEqual({ key: nameKey('マルカ'), forms: ['有限会社'] });
    expect(nameKeyAndForms('株式会社マルカ')).toEqual({ key: nameKey('マルカ'), forms: ['株式会社'] });
    expect(nameKeyAndForms('医療法人社団マルカ')).toEqual({ key: nameKey('マルカ'), forms: ['医療法人'] });
    expect(nameKeyAndForms('マルカ物流')).toEqual({ key: nameKey('マルカ物流'), forms: [] });
    const part = fc.constantFrom(
      '株式会社',
      '㈱',
      '(有)',
      'ｶ)',
      '医療法人社団',
      ' Co., Ltd.',
      'マルカ',
      '第一',
      'ABC',
      '物流',
      ' 大阪支店',
      '本社',
      '・',
      '　',
    );
    fc.assert(
      fc.property(fc.array(part, { minLength: 1, maxLength: 6 }), (parts) => {
        const name = parts.join('');
        // the key against nameKey's own folding (legalForms reads its forms from
        // nameKeyAndForms, so the examples above and legalForms' own test check the forms)
        expect(nameKeyAndForms(name).key).toBe(nameKey(name));
      }),
      propertyParams(300),
    );
  });
});

describe('width, case, kana', () => {
  it('full width, half width and letter case', () => {
    expectKeys([
      ['abcまと', 'ABCマート', 'ＡＢＣマート', 'abc マート', 'ａｂｃﾏｰﾄ'],
      ['ntt', 'NTT', 'ＮＴＴ', 'Ntt'],
      ['3m', '3M', '３Ｍ', '3 M'],
    ]);
  });

  it('katakana = hiragana (the key is in hiragana); half-width kana', () => {
    expectKeys([
      ['まるか', 'マルカ', 'まるか', 'ﾏﾙｶ', 'マるカ'],
      ['がんだむ', 'ガンダム', 'ｶﾞﾝﾀﾞﾑ', 'がんだむ'],
    ]);
  });

  it('small kana = large kana', () => {
    expectKeys([
      ['きやのん', 'キャノン', 'キヤノン', 'ｷｬﾉﾝ', 'ｷﾔﾉﾝ'],
      ['ふじふいるむ', 'フジフイルム', 'フジフィルム'],
      ['けやき', 'ケヤキ', 'ヶやき', 'ヵやき'],
      ['霞け関', '霞ヶ関', '霞ケ関', '霞ヵ関'],
      ['まつち', 'マッチ', 'マツチ'],
    ]);
  });

  it('ヴ forms = バ行', () => {
    expectKeys([
      ['びれつじ', 'ヴィレッジ', 'ビレッジ', 'ヴィレツジ', 'ゔぃれっじ'],
      ['ばいおりん', 'ヴァイオリン', 'バイオリン', 'ヷイオリン'],
      ['ぶいえいと', 'ヴイエイト', 'ブイエイト'],
      ['べにす', 'ヴェニス', 'ベニス', 'ヹニス'],
      ['ぼるぼ', 'ヴォルボ', 'ボルボ', 'ヺルボ'],
    ]);
  });

  it('long-vowel marks are dropped, every dash alike, written or not', () => {
    expectKeys([
      [
        'こんぴゆたさびす',
        'コンピューターサービス',
        'コンピュータサービス',
        'コンピュータ－サービス',
        'ｺﾝﾋﾟｭｰﾀｰｻｰﾋﾞｽ',
        'コンピュ―タ‐サ－ビス',
      ],
      [
        'すぱまけつと',
        'スーパーマーケット',
        'スーパー マーケット',
        'スーパ・マーケット',
        'スーパーマーケツト',
      ],
    ]);
  });

  it('separators and punctuation', () => {
    expectKeys([
      ['abcまと', 'A・B・C マート', 'A.B.C.マート', 'A-B-C　マート', 'A B C/マート'],
      ['あんどあい', 'アンド・アイ', 'アンド アイ', 'アンド　アイ'],
      ['atandt', 'ATandT', 'AT and T'],
      ['att', 'AT&T', 'AT＆T', 'AT & T'],
      ['まるかぶつりゆう', '「マルカブツリュウ」', '"マルカ ブツリュウ"', 'マルカ！ブツリュウ'],
    ]);
  });
});

describe('old and variant kanji, 々', () => {
  it('folds the old or variant form to the common one', () => {
    expectKeys([
      ['高島屋', '髙島屋', '高島屋'],
      ['山崎製ぱん', '山﨑製パン', '山嵜製パン', '山碕製パン', '山崎製パン'],
      ['斎藤商店', '齋藤商店', '斎藤商店'],
      ['斉藤商店', '齊藤商店', '斉藤商店'],
      ['渡辺建設', '渡邊建設', '渡邉建設', '渡辺建設'],
      ['沢井製薬', '澤井製薬', '沢井製薬'],
      ['広島がす', '廣島ガス', '広島ガス'],
      ['徳島銀行', '德島銀行', '徳島銀行'],
      ['浜松ほとにくす', '濱松ホトニクス', '浜松ホトニクス'],
      ['国際興業', '國際興業', '国際興業'],
      ['会計事務所みなと', '會計事務所みなと', '会計事務所みなと'],
      ['桜井製作所', '櫻井製作所', '桜井製作所'],
      ['竜角散', '龍角散', '竜角散'],
      ['真田工業', '眞田工業', '真田工業'],
      ['芸術出版', '藝術出版', '芸術出版'],
      ['島田屋', '嶋田屋', '嶌田屋', '島田屋'],
      // outside the BMP: 𠮷 (U+20BB7) is the 吉 of 𠮷野家
      ['吉野家', '𠮷野家', '吉野家'],
    ]);
  });

  it('々 repeats the kanji before it; ゝ ゞ the kana', () => {
    expectKeys([
      ['佐佐木商店', '佐々木商店', '佐佐木商店'],
      ['野野村', '野々村', '野野村'],
      ['いすず自動車', 'いすゞ自動車', 'いすず自動車', 'イスズ自動車'],
      ['みすず', 'みすゞ', 'ミスヾ'],
    ]);
  });
});

describe('branch words after the name', () => {
  it('dropped after a separator or a legal form', () => {
    expectKeys([
      [
        'まるか物流',
        'マルカ物流株式会社 東京支店',
        'マルカ物流株式会社東京支店',
        'マルカ物流(株)大阪営業所',
        '株式会社マルカ物流 本社',
        'マルカ物流 本店',
        'マルカ物流・横浜事業所',
        'マルカ物流（第二工場）',
        'マルカ物流 札幌出張所',
        'マルカ物流 九州支社',
        'マルカ物流　東京事務所',
        'マルカ物流 営業本部',
        // the branch dropped, the legal form before it is at the end, and goes too
        'マルカ物流協同組合 本店',
        'マルカ物流 Co., Ltd. 東京支店',
        // glued straight to the name: the office words no registered name ends with
        'マルカ物流大阪営業所',
        'マルカ物流東京支店',
        'マルカ物流株式会社本社',
        'マルカ物流九州支社',
        'マルカ物流さいたま出張所',
      ],
      // a long-vowel mark is no separator: the rest is no branch part
      ['あく物産', '株式会社アーク物産大阪営業所', 'アーク物産 本社', 'ア－ク物産(株)'],
    ]);
  });

  it('kept when it is the name, or part of it', () => {
    expectKeys([
      // glued to the name: part of it, for the words registered names end with
      ['まるか設計事務所', 'マルカ設計事務所'],
      ['まるか物流本店', 'マルカ物流本店'],
      // (the ordinal's kanji numeral is a digit in the key: kanji numerals below)
      ['まるか物流第2工場', 'マルカ物流第二工場'],
      // a glued office word with something before it that is no place: the word goes alone
      ['まるか物流西口', 'マルカ物流西口営業所'],
      // a glued word with less than two characters of name before it
      ['あ本社', 'ア本社'],
      // after a middle dot, a word of the name: no place or ordinal before 事務所
      ['しえありんく設計事務所', 'シェア・リンク設計事務所株式会社', 'シェアリンク設計事務所'],
      [
        'おりおんふあまえるえるし',
        'オリオン・ファーマ・エルエルシー',
        'オリオン・ファーマ・エルエルシー大阪営業所',
      ],
      // nothing before it but a legal form: the name itself
      ['本社', '株式会社本社'],
      ['東京支店', '株式会社 東京支店'],
      // センター ends many names: never glued, and never the whole name
      ['日本情報せんた', '株式会社 日本情報センター', '日本情報センター株式会社'],
      ['まるか物流せんた', 'マルカ物流センター'],
      // a long last part is a name, not a branch: only a glued office word at its end goes
      ['まるか東京都港区芝浦第1物流', 'マルカ 東京都港区芝浦第一物流支店'],
      ['まるか東京都港区芝浦第1物流工場', 'マルカ 東京都港区芝浦第一物流工場'],
    ]);
  });
});

/**
 * Spellings the tables above leave out, each key written from the rules of docs/names.md
 * ("What the name key folds": NFKC first, so a compatibility character is the text NFKC makes
 * of it; ignorables dropped; then legal forms, separators, variants), not taken from the code.
 */
describe('compatibility characters and invisible ones, as docs/names.md orders the steps', () => {
  it('ignorable characters are dropped: zero-width space, word joiner, soft hyphen, BOM, variation selectors', () => {
    expectKeys([
      ['まるか', 'マル\u200bカ', 'マ\u2060ルカ', 'マル\u00adカ', '\ufeffマルカ', 'マルカ'],
      // 葛 with an ideographic variation selector (U+E0100) and with a standardized one (U+FE00)
      ['葛飾商事', '葛\u{e0100}飾商事', '葛\ufe00飾商事', '葛飾商事'],
    ]);
  });

  it('a legal form that NFKC spells out is a legal form: ㍿ (U+337F) is 株式会社, （有） is (有)', () => {
    expectKeys([
      ['まるか', '㍿マルカ', 'マルカ㍿', '㍿ ﾏﾙｶ', '（有）マルカ', 'マルカ（有）'],
      // full-width Latin: NFKC makes it CO.,LTD., a Latin form at the end
      ['maruka', 'ＭＡＲＵＫＡ　ＣＯ．，ＬＴＤ．', 'ＭＡＲＵＫＡ ＩＮＣ．'],
    ]);
  });

  it('a circled ideograph that NFKC makes 株 alone is no legal form (株式 alone is none either)', () => {
    // ㊑ (U+3291 CIRCLED IDEOGRAPH STOCK) -> 株; only ㈱ (PARENTHESIZED) is (株)
    expectKeys([['株まるか', '㊑マルカ', '株マルカ']]);
  });

  it('old kanji with every legal-form spelling: one key', () => {
    expectKeys([
      ['高島屋', '株式会社髙島屋', '㈱高島屋', '高島屋(株)', 'ｶﾌﾞｼｷｶﾞｲｼｬ 髙島屋'],
      ['斎藤商店', '有限会社齋藤商店', '齋藤商店㈲', '(有)斎藤商店'],
    ]);
  });

  it('no-break and ideographic spaces are separators like any space', () => {
    expectKeys([['まるか物流', 'マルカ\u00a0物流', 'マルカ\u3000物流', 'マルカ\u2003物流']]);
  });

  it('romaji in full width, with a Latin legal form, or from half-width kana: one romaji key', () => {
    for (const spelling of [
      'ＭＡＲＵＫＡ　ＢＵＴＳＵＲＹＵ',
      'Maruka Butsuryu Kabushiki Kaisha',
      'ﾏﾙｶﾌﾞﾂﾘｭｳ',
      'maruka butsuryuu',
    ])
      expect(romajiKey(spelling), spelling).toBe('marukabuturyu');
    // the rows of docs/names.md's romaji table, each as the page writes it
    for (const [key, ...typed] of [
      ['tokyo', 'Tōkyō', 'toukyou', 'TOHKYOH', 'トウキョウ'],
      ['buturyu', 'butsuryuu'],
      ['hukuti', 'Fukuchi', 'hukuti'],
      ['sinbasi', 'Shimbashi', 'shinbashi'],
      ['kanei', "kan'ei"],
      ['hokaido', 'Hokkaido', 'hokaido'],
      ['matya', 'matcha', 'maccha'],
    ] as const)
      for (const spelling of typed) expect(romajiKey(spelling), spelling).toBe(key);
  });
});

describe('different companies keep different keys', () => {
  it('near spellings', () => {
    expectDifferent([
      ['日本', '日本橋'],
      ['東洋', '東陽'],
      ['斎藤商店', '斉藤商店'],
      ['島田', '嶋崎'],
      ['サッポロ', 'サッポロ物産'],
      ['ABC', 'ABCD'],
      ['霞が関', '霞ヶ関'],
      ['キャノン', 'キノン'],
      ['全国農業協同組合連合会', '全国漁業協同組合連合会'],
      ['マルカ物流', 'マルカ物産'],
      ['Zinc', 'Z'],
    ]);
  });
});

describe('the key is a fixed point', () => {
  // Names built from the pieces the key folds: kana of both scripts and widths, small kana,
  // ヴ, variant kanji, 々, Latin; legal forms, whole and in halves that separators may split
  // (株 式会社, Co Ltd) or that dropping something between them may join; separators.
  const words = [
    ...'マルカまるかﾏﾙｶキャッシュヴィァ髙高﨑崎國国澤沢佐々木ゝゞいすゞ日本東京',
    '本社',
    '東京支店',
    'ABC',
    'abc',
    'Zinc',
    '連合会',
  ];
  const legal = [
    '株式会社',
    '㈱',
    '(株)',
    'カブシキガイシャ',
    '有限会社',
    '協同組合',
    'Co., Ltd.',
    'Inc.',
    'inc',
    'ｶ)',
    '(ｶ',
    '株',
    '式会社',
    'カブシキ',
    'ガイシャ',
    'Co',
    'Ltd',
    '協同',
    '組合',
  ];
  const separators = [...'ーｰ－-・ 　.&()（）'];
  const names = fc
    .array(
      fc.oneof(
        { arbitrary: fc.constantFrom(...words), weight: 4 },
        { arbitrary: fc.constantFrom(...legal), weight: 3 },
        { arbitrary: fc.constantFrom(...separators), weight: 3 },
      ),
      { maxLength: 12 },
    )
    .map((parts) => parts.join(''));

  it('nameKey(nameKey(x)) === nameKey(x), and the same for readingKey', () => {
    fc.assert(
      fc.property(names, (name) => {
        const key = nameKey(name);
        expect(nameKey(key)).toBe(key);
        const reading = readingKey(name);
        expect(readingKey(reading)).toBe(reading);
      }),
      propertyParams(2000),
    );
  });
});

describe('kanji numerals are digits in the key', () => {
  it('an ordinal, a count, a year: written in kanji or in digits, one key', () => {
    expectKeys([
      ['第1物流', '第一物流', '第1物流', '第１物流', '株式会社第一物流'],
      ['21世紀ふあむ', '二十一世紀ファーム', '21世紀ファーム', '２１世紀ファーム'],
      ['2024企画', '二〇二四企画', '2024企画'],
      ['150周年', '百五十周年', '150周年'],
      ['35000石', '三万五千石', '35000石'],
      ['3和興業', '三和興業', '3和興業'],
    ]);
  });

  it('different numbers stay apart', () => {
    expectDifferent([
      ['第一物流', '第二物流'],
      ['二十一世紀', '十二世紀'],
      ['百五十', '五百十'],
    ]);
  });
});

describe('a site after the name: a plant, a branch, a department', () => {
  it("a separator, the site's own name, a site word: dropped", () => {
    expectKeys([
      [
        'まるか物流',
        'マルカ物流 厚木工場',
        'マルカ物流株式会社 渋谷駅前支店',
        'マルカ物流（東名センター）',
        'マルカ物流 海老名倉庫',
        'マルカ物流 つくば研究所',
        'マルカ物流 物流センター',
        'マルカ物流・青葉台店',
        'マルカ物流株式会社 第三営業部',
        'マルカ物流営業部',
        'マルカ物流株式会社事業部',
      ],
    ]);
  });

  it('kept when it is the name: glued, alone, or too long for a site', () => {
    expectKeys([
      ['まるか物流せんた', 'マルカ物流センター'],
      ['まるか商店', 'マルカ商店'],
      ['まるか工場', 'マルカ・工場'],
      ['まるかしよつぴんぐせんた', 'マルカ・ショッピングセンター'],
    ]);
  });
});

describe('legal forms the register has beside companies', () => {
  it('professional corporations, cooperatives, public bodies: dropped like 株式会社', () => {
    expectKeys([
      ['まるか', '弁護士法人マルカ', '税理士法人マルカ', '監査法人マルカ', '有限責任監査法人マルカ'],
      [
        'まるか',
        '司法書士法人マルカ',
        '行政書士法人マルカ',
        '社会保険労務士法人マルカ',
        '特許業務法人マルカ',
      ],
      ['まるか', '農事組合法人マルカ', '企業組合マルカ', 'マルカ企業組合', '管理組合法人マルカ'],
      ['まるか', 'ﾍﾞﾝｺﾞｼﾎｳｼﾞﾝ ﾏﾙｶ', 'ｾﾞｲﾘｼﾎｳｼﾞﾝﾏﾙｶ'],
      ['maruka', 'Maruka LLP', 'Maruka Co., Ltd', 'Maruka Kabushikikaisha'],
    ]);
    expect(legalForms('弁護士法人マルカ')).toEqual(['弁護士法人']);
    expect(legalForms('マルカ LLP')).toEqual(['有限責任事業組合']);
  });
});

describe('the spoken key: letters, loanwords and symbols as they are said', () => {
  /** Each row: spellings of one name, and the spoken key they all give. */
  function expectSpoken(rows: Array<[key: string, ...spellings: string[]]>): void {
    for (const [key, ...spellings] of rows)
      for (const spelling of spellings) expect(spokenKey(spelling), spelling).toBe(key);
  }

  it('Latin letters and their katakana names, with the usual variants', () => {
    expectSpoken([
      // エー/エイ, ビー, シー: the long vowels fold, however written
      [
        'えびしまと',
        'ABCマート',
        'ＡＢＣマート',
        'エービーシーマート',
        'エイビーシー・マート',
        'abc mart'.slice(0, 3) + 'マート',
      ],
      // ケー/ケイ, エス
      ['けす', 'KS', 'ケーエス', 'ケイエス', 'ケイ・エス'],
      // エヌ, ティー/ティ
      ['えぬててどこも', 'NTTドコモ', 'エヌ・ティ・ティ・ドコモ', 'エヌティーティードコモ'],
      // ダブリュー/ダブリュ
      ['だぶりゆえち', 'WH', 'ダブリュー・エイチ', 'ダブリュエイチ'],
    ]);
  });

  it('English words and their katakana', () => {
    expectSpoken([
      [
        'えびしてくのろじず',
        'ABC Technologies Inc.',
        'エービーシー・テクノロジーズ株式会社',
        'ABCテクノロジーズ',
      ],
      [
        'じやぱんしすてむず',
        'Japan Systems',
        'JAPAN SYSTEMS Co., Ltd.',
        'ジャパンシステムズ',
        'JapanSystems',
      ],
      ['まるかほるでんぐす', 'マルカ Holdings', 'マルカホールディングス', 'マルカ・ホールディングス㈱'],
      ['ぐろばるとれでんぐ', 'Global Trading', 'グローバル・トレーディング', 'グローバルトレーディング'],
    ]);
  });

  it('symbols said as words', () => {
    expectSpoken([
      ['けあんどえす', 'K&S', 'K＆S', 'ケー・アンド・エス', 'ケイアンドエス'],
      ['えてあんどて', 'AT&T', 'エイ・ティ・アンド・ティ'],
      ['まるかぷらす', 'マルカ+', 'マルカプラス', 'マルカ＋'],
    ]);
  });

  it('names that are said differently stay apart', () => {
    for (const [a, b] of [
      ['ABCマート', 'ABDマート'],
      ['KS', 'KC'],
      ['ジャパンシステムズ', 'ジャパンシステム開発'],
      ['K&S', 'KS'],
    ] as const)
      expect(spokenKey(a), `${a} / ${b}`).not.toBe(spokenKey(b));
  });

  it('a name with no Latin letters or symbols: the name key, with long vowels folded', () => {
    expect(spokenKey('株式会社マルカ物流')).toBe('まるか物流');
    expect(spokenKey('コウヨウ商事')).toBe('こよ商事');
    expect(spokenKey('コーヨー商事')).toBe('こよ商事');
  });
});
