/**
 * The evaluation's own rules of "the same name", beyond bench/name-variants.ts's reference fold:
 * the tables the CRM classes (bench/names/crm-classes.ts) write names with, and `canonicalKey`,
 * which undoes every one of them so the labels know which companies a record may mean.
 *
 * Written from plain rules, never from the product's name code (src/names/), so the labels do
 * not inherit its mistakes:
 *   - Latin letters as Japanese writes their English names in katakana (A エー, K ケー, W
 *     ダブリュー), with the other spellings people use (エイ, ケイ, ダブリュ, ジィ, ...);
 *   - business loanwords and the English words they come from (テクノロジーズ Technologies);
 *   - kanji numerals as taught: 一 to 九, 十 百 千 as multipliers (二十一 = 21), or written
 *     digit by digit (一〇 = 10);
 *   - & read アンド and + read プラス (and, the safe side, a name with them dropped is the same);
 *   - Latin legal suffixes (Inc., Corp., Corporation, K.K., Co., Ltd., LLC, G.K.), the one-
 *     character and bracketed legal forms (㈱ = (株), ㈲, ㈳ = (社), ㈶ = (財), ㍿ = 株式会社 by
 *     Unicode compatibility), and the bank-transfer (全銀) abbreviations in brackets ((ｶ) for
 *     株式会社, (ﾕ) 有限会社, (ﾄﾞ) 合同会社, (ﾒ) 合名会社, (ｼ) 合資会社);
 *   - characters that print nothing (zero-width space and joiners, word joiner, soft hyphen, BOM);
 *   - a department or site of a company written after its name (本社, 支店, 営業所, 工場, ...),
 *     with or without a place before it and a space between.
 * Over-merging is the safe side: two names this fold makes equal count as namesakes, so a
 * record that could mean either is labelled "no confident match".
 */
import { kanaToRomaji, readingCore, referenceKey, romajiKey } from '../name-variants.js';

// ---------------------------------------------------------------------------------------------
// Latin letters and their katakana names

/** Each letter's katakana name, the usual spelling first, then the others people type. */
// biome-ignore format: a table reads as a table
export const letterNames: Record<string, readonly string[]> = {
  A: ['エー', 'エイ'], B: ['ビー'], C: ['シー'], D: ['ディー', 'デー'], E: ['イー'], F: ['エフ'],
  G: ['ジー', 'ジィ'], H: ['エイチ', 'エッチ'], I: ['アイ'], J: ['ジェー', 'ジェイ'], K: ['ケー', 'ケイ'],
  L: ['エル'], M: ['エム'], N: ['エヌ'], O: ['オー'], P: ['ピー'], Q: ['キュー'], R: ['アール'],
  S: ['エス'], T: ['ティー', 'テー'], U: ['ユー'], V: ['ブイ', 'ヴィー'], W: ['ダブリュー', 'ダブリュ'],
  X: ['エックス'], Y: ['ワイ'], Z: ['ゼット', 'ズィー'],
};

/** Letters as their katakana names: `variant` 0 the usual spelling, 1 the other where there is one. */
export function spellLetters(letters: string, variant = 0): string {
  return [...letters.toUpperCase()]
    .map((letter) => {
      const names = letterNames[letter];
      return names ? (names[Math.min(variant, names.length - 1)] as string) : letter;
    })
    .join('');
}

/** Every spelling of every letter, longest first: what a katakana run of letter names is read with. */
const letterSpellings = Object.entries(letterNames)
  .flatMap(([letter, names]) => names.map((name) => [name, letter] as const))
  .sort((a, b) => b[0].length - a[0].length);

/** A katakana run read as letter names (エービーシー -> ABC), or null when it is not only letter names. */
export function readLetterNames(kana: string): string | null {
  let out = '';
  let at = 0;
  while (at < kana.length) {
    const hit = letterSpellings.find(([name]) => kana.startsWith(name, at));
    if (!hit) return null;
    out += hit[1];
    at += hit[0].length;
  }
  return out.length >= 2 ? out : null;
}

/**
 * After the reference fold (long vowels dropped, small kana large), the other spellings of the
 * letter names come out as these; each is put to the usual one. Applied to every name alike.
 */
const letterNameFolds: ReadonlyArray<readonly [RegExp, string]> = [
  [/エツチ/g, 'エイチ'],
  [/エイ(?!チ)/g, 'エ'],
  [/ケイ/g, 'ケ'],
  [/ジイ/g, 'ジ'],
  [/デイ/g, 'デ'],
  [/テイ/g, 'テ'],
  [/ブイ/g, 'ビ'],
  [/ズイ/g, 'ゼツト'],
];

// ---------------------------------------------------------------------------------------------
// loanwords

/** Business loanwords in company names and the English words they are (longest katakana first). */
// biome-ignore format: a table reads as a table
export const loanwords: ReadonlyArray<readonly [string, string]> = [
  ['インターナショナル', 'International'], ['エンジニアリング', 'Engineering'],
  ['コンサルティング', 'Consulting'], ['ホールディングス', 'Holdings'], ['テクノロジーズ', 'Technologies'],
  ['ソリューションズ', 'Solutions'], ['トレーディング', 'Trading'], ['テクノロジー', 'Technology'],
  ['ソリューション', 'Solution'], ['マネジメント', 'Management'], ['ネットワークス', 'Networks'],
  ['ネットワーク', 'Network'], ['パートナーズ', 'Partners'], ['ファイナンス', 'Finance'],
  ['ビューティー', 'Beauty'], ['サービシズ', 'Services'], ['システムズ', 'Systems'], ['メディカル', 'Medical'],
  ['アカデミー', 'Academy'], ['グローバル', 'Global'], ['フォレスト', 'Forest'], ['システム', 'System'],
  ['サービス', 'Service'], ['ジャパン', 'Japan'], ['グループ', 'Group'], ['デザイン', 'Design'],
  ['サポート', 'Support'], ['スクール', 'School'], ['ブライト', 'Bright'], ['ネクスト', 'Next'],
  ['フーズ', 'Foods'], ['ホーム', 'Home'], ['ライフ', 'Life'], ['リンク', 'Link'], ['ソフト', 'Soft'],
  ['ストア', 'Store'], ['ケア', 'Care'], ['ラボ', 'Lab'], ['エイム', 'Aim'],
];
const englishToKana = new Map(loanwords.map(([kana, english]) => [english.toLowerCase(), kana]));
// "Services" and "Service" are both サービス in most names: the plural written サービス too
englishToKana.set('services', 'サービス');

/** Katakana words a name is cut into words at, besides the loanwords. */
const katakanaWords = [
  ...loanwords.map(([kana]) => kana),
  'スタッフ',
  'レンタル',
  'ダイニング',
  'ヘアー',
  'キャピタル',
  'コーポレーション',
].sort((a, b) => b.length - a.length);

// ---------------------------------------------------------------------------------------------
// kanji words with their readings (what "a reading typed partly in kanji" and the word cuts use)

/** Common words of company names and their readings, as a dictionary gives them. */
// biome-ignore format: a table reads as a table
export const kanjiWords: ReadonlyArray<readonly [string, string]> = [
  ['建設', 'ケンセツ'], ['工業', 'コウギョウ'], ['商事', 'ショウジ'], ['物産', 'ブッサン'], ['産業', 'サンギョウ'],
  ['物流', 'ブツリュウ'], ['設備', 'セツビ'], ['電設', 'デンセツ'], ['商会', 'ショウカイ'], ['企画', 'キカク'],
  ['証券', 'ショウケン'], ['倉庫', 'ソウコ'], ['化学', 'カガク'], ['電機', 'デンキ'], ['電子', 'デンシ'],
  ['自動車', 'ジドウシャ'], ['不動産', 'フドウサン'], ['設計', 'セッケイ'], ['食品', 'ショクヒン'],
  ['運輸', 'ウンユ'], ['教育', 'キョウイク'], ['商店', 'ショウテン'], ['鉄工所', 'テッコウショ'],
  ['総研', 'ソウケン'], ['技研', 'ギケン'], ['興業', 'コウギョウ'], ['製作所', 'セイサクショ'],
  ['事務所', 'ジムショ'], ['交通', 'コウツウ'], ['精機', 'セイキ'], ['開発', 'カイハツ'], ['工務店', 'コウムテン'],
  ['東洋', 'トウヨウ'], ['未来', 'ミライ'], ['三和', 'サンワ'], ['朝日', 'アサヒ'], ['関西', 'カンサイ'],
  ['関東', 'カントウ'], ['九州', 'キュウシュウ'], ['東海', 'トウカイ'], ['北斗', 'ホクト'], ['新星', 'シンセイ'],
  ['大和', 'ダイワ'], ['富士', 'フジ'], ['桜', 'サクラ'], ['青葉', 'アオバ'], ['平和', 'ヘイワ'], ['山田', 'ヤマダ'],
  ['鈴木', 'スズキ'], ['高橋', 'タカハシ'], ['昭和', 'ショウワ'], ['太陽', 'タイヨウ'], ['中央', 'チュウオウ'],
  ['日本', 'ニホン'], ['若葉', 'ワカバ'], ['瀬戸内', 'セトウチ'], ['東北', 'トウホク'], ['丸井', 'マルイ'],
];
const kanjiWordList = [...kanjiWords].sort((a, b) => b[0].length - a[0].length);

export type Script = 'kanji' | 'katakana' | 'hiragana' | 'latin' | 'other';
const scriptOf = (char: string): Script =>
  /[\u4e00-\u9fff々〆ヶ]/.test(char)
    ? 'kanji'
    : /[\u30a1-\u30fcｦ-ﾟ]/.test(char)
      ? 'katakana'
      : /[\u3041-\u3096]/.test(char)
        ? 'hiragana'
        : /[A-Za-zＡ-Ｚａ-ｚ]/.test(char)
          ? 'latin'
          : 'other';

/**
 * The words of a name (without its legal form): runs of one script, a katakana run cut at the
 * katakana words above, a kanji run at the kanji words above (longest first; what no word
 * covers is a word of its own). ・ and spaces separate and are not words.
 */
export function words(core: string): string[] {
  const runs: string[] = [];
  let run = '';
  let script: Script | null = null;
  for (const char of core) {
    const here = scriptOf(char);
    if (here === 'other') {
      if (run) runs.push(run);
      run = '';
      script = null;
      continue;
    }
    if (script !== null && here !== script) {
      runs.push(run);
      run = '';
    }
    run += char;
    script = here;
  }
  if (run) runs.push(run);
  const out: string[] = [];
  for (const part of runs) {
    const table =
      scriptOf(part[0] as string) === 'katakana'
        ? katakanaWords
        : scriptOf(part[0] as string) === 'kanji'
          ? kanjiWordList.map(([k]) => k)
          : null;
    if (!table) {
      out.push(part);
      continue;
    }
    let unknown = '';
    let at = 0;
    while (at < part.length) {
      const hit = table.find((word) => part.startsWith(word, at));
      if (hit) {
        if (unknown) out.push(unknown);
        unknown = '';
        out.push(hit);
        at += hit.length;
      } else unknown += part[at++];
    }
    if (unknown) out.push(unknown);
  }
  return out;
}

/** The reading of a kanji word of the table, or undefined. */
export const readingOfWord = (word: string) => kanjiWords.find(([kanji]) => kanji === word)?.[1];

// ---------------------------------------------------------------------------------------------
// numerals

const kanjiDigits = '〇一二三四五六七八九';
const multipliers: Record<string, number> = { 十: 10, 百: 100, 千: 1000 };

/** A run of kanji numerals as a number: 二十一 = 21, 百五 = 105, 一〇 = 10 (digit by digit). */
export function kanjiToNumber(run: string): number {
  if (![...run].some((c) => c in multipliers))
    return Number([...run].map((c) => kanjiDigits.indexOf(c)).join(''));
  let total = 0;
  let digit = 0;
  for (const char of run) {
    const value = kanjiDigits.indexOf(char);
    if (value >= 0) digit = value;
    else {
      total += (digit || 1) * (multipliers[char] as number);
      digit = 0;
    }
  }
  return total + digit;
}

/** A number (1-9999) in kanji numerals as taught: 21 = 二十一, 10 = 十, 105 = 百五. */
export function numberToKanji(value: number): string {
  let out = '';
  let rest = value;
  for (const [mark, unit] of [
    ['千', 1000],
    ['百', 100],
    ['十', 10],
  ] as const) {
    const count = Math.floor(rest / unit);
    if (count > 0) out += `${count > 1 ? kanjiDigits[count] : ''}${mark}`;
    rest %= unit;
  }
  return out + (rest > 0 ? kanjiDigits[rest] : '');
}

/** Numerals that stand for a number in a name: after 第, or before 世紀 / 号 / 番 / 丁目. */
export const numeralPattern =
  /(?<=第)[〇一二三四五六七八九十百千]+|[〇一二三四五六七八九十百千]+(?=世紀|号|番|丁目)/g;

// ---------------------------------------------------------------------------------------------
// legal forms: what a record states about the form, in any of its spellings

export type FormId =
  | 'kk'
  | 'yk'
  | 'gk'
  | 'gomei'
  | 'goshi'
  | 'shadan'
  | 'zaidan'
  | 'npo'
  | 'iryo'
  | 'shafuku'
  | 'gakko';

/** Spellings of each form after NFKC (㈱ is (株), ㍿ is 株式会社, ｶ is カ). */
// biome-ignore format: a table reads as a table
const formSpellings: ReadonlyArray<readonly [string, FormId]> = [
  ['株式会社', 'kk'], ['カブシキガイシャ', 'kk'], ['(株)', 'kk'], ['(カ)', 'kk'], ['k.k.', 'kk'], ['kk', 'kk'],
  ['有限会社', 'yk'], ['ユウゲンガイシャ', 'yk'], ['(有)', 'yk'], ['(ユ)', 'yk'],
  ['合同会社', 'gk'], ['ゴウドウガイシャ', 'gk'], ['(同)', 'gk'], ['(ド)', 'gk'], ['llc', 'gk'], ['g.k.', 'gk'],
  ['合名会社', 'gomei'], ['(名)', 'gomei'], ['(メ)', 'gomei'],
  ['合資会社', 'goshi'], ['(資)', 'goshi'], ['(シ)', 'goshi'],
  ['一般社団法人', 'shadan'], ['(一社)', 'shadan'], ['(社)', 'shadan'],
  ['一般財団法人', 'zaidan'], ['(一財)', 'zaidan'], ['(財)', 'zaidan'],
  ['特定非営利活動法人', 'npo'], ['医療法人社団', 'iryo'], ['社会福祉法人', 'shafuku'], ['学校法人', 'gakko'],
];

/**
 * The legal form a name states at either end (any spelling), or before a department or site
 * written after it (朝日ストア株式会社東京支店), or null when it states none.
 */
export function formOf(name: string): FormId | null {
  const text = stripInvisible(name.normalize('NFKC')).toLowerCase().replace(/\s+/g, '');
  const withoutDepartment = text.replace(writtenDepartmentTail(), '');
  for (const [spelling, form] of formSpellings)
    for (const written of [text, withoutDepartment])
      if (written.startsWith(spelling) || written.endsWith(spelling)) return form;
  return null;
}

let departmentTailAsWritten: RegExp | undefined;
/** A department or site as written after a name (the words below, a place before them). */
const writtenDepartmentTail = () => {
  departmentTailAsWritten ??= new RegExp(`(${departmentPlaces.join('|')})?(${departmentWords.join('|')})+$`);
  return departmentTailAsWritten;
};

// ---------------------------------------------------------------------------------------------
// the canonical key

/** Zero-width space, non-joiner, joiner, word joiner, BOM, soft hyphen. */
export const invisibleCharacters = ['\u200b', '\u200c', '\u200d', '\u2060', '\ufeff', '\u00ad'] as const;
const invisible = /\u200b|\u200c|\u200d|\u2060|\ufeff|\u00ad/g;
export const stripInvisible = (text: string) => text.replace(invisible, '');

/** Latin legal suffixes (after NFKC and lower case), with the comma or space before them. */
const latinSuffix =
  /[\s,]*(co\.?,?\s*ltd\.?|corporation|corp\.?|inc\.?|k\.\s?k\.?|llc|g\.\s?k\.?|y\.\s?k\.?|ltd\.?|co\.?)$/;
/** Bracketed forms and bank-transfer abbreviations, anywhere in the name. */
const bracketForm = /\((株|有|同|名|資|社|財|一社|一財|カ|ユ|ド|メ|シ)\)/g;

/** The departments and sites of a company written after its name, and places before them. */
export const departmentWords = [
  '本社',
  '本店',
  '支店',
  '支社',
  '営業所',
  '営業部',
  '事業部',
  '工場',
  'センター',
  '店',
  '出張所',
];
export const departmentPlaces = [
  '東京',
  '大阪',
  '名古屋',
  '横浜',
  '札幌',
  '福岡',
  '仙台',
  '広島',
  '京都',
  '神戸',
  '新宿',
  '渋谷',
  '梅田',
  '博多',
];
/** After the reference fold (センター is センタ there), at the end of a key. */
const departmentTail = new RegExp(
  `(${departmentPlaces.join('|')})?(${departmentWords.map((w) => referenceKey(w)).join('|')})$`,
);

/** Latin words as the katakana a name would write them in: a loanword, else the letters' names. */
function latinToKana(text: string): string {
  return text.replace(/[a-z]+/g, (word) => englishToKana.get(word) ?? spellLetters(word));
}

/**
 * The evaluation's key of a name: two names with the same key are the same name to a person
 * reading a sales list. Undoes every rule of this file, then the reference fold.
 */
export function canonicalKey(text: string): string {
  let key = stripInvisible(text.normalize('NFKC')).toLowerCase().trim();
  for (let i = 0; i < 2; i++) key = key.replace(latinSuffix, '');
  key = key.replace(bracketForm, '');
  // A&B, AアンドB and AB are one name here (whether a list keeps the & or not)
  key = key.replace(/[&+]|アンド|プラス/g, '');
  key = latinToKana(key);
  key = key.replace(/[〇一二三四五六七八九十百千]+/g, (run) => String(kanjiToNumber(run)));
  key = referenceKey(key);
  // a department after a department (東京支店営業部) goes too, and the legal form before it; so
  // does 店 of 商店, alike in every name
  for (let i = 0; i < 3; i++) {
    const cut = key.replace(departmentTail, '');
    if (cut === key || cut === '') break;
    const folded = referenceKey(cut);
    if (folded === '') break;
    key = folded;
  }
  for (const [pattern, to] of letterNameFolds) key = key.replace(pattern, to);
  return key;
}

/** The canonical key of a reading (its legal form's reading left out). */
export const canonicalReading = (furigana: string) => canonicalKey(readingCore(furigana));

/** The romaji key of a Latin name: English loanwords read as their katakana, legal suffix dropped. */
export function latinReadingKey(name: string): string {
  const text = stripInvisible(name.normalize('NFKC')).toLowerCase().replace(latinSuffix, '');
  return romajiKey(
    text.replace(/[a-z]+/g, (word) => {
      const kana = englishToKana.get(word);
      return kana ? kanaToRomaji(kana, 'hepburn') : word;
    }),
  );
}

/** Hepburn of a katakana word, or its English when it is a loanword of the table. */
export function englishOrRomaji(kana: string): string {
  const english = loanwords.find(([k]) => k === kana)?.[1];
  if (english) return english;
  const romaji = kanaToRomaji(kana, 'hepburn');
  return `${romaji[0]?.toUpperCase() ?? ''}${romaji.slice(1)}`;
}

export const isKanaOnly = (text: string) =>
  /^[\u3041-\u3096\u30a1-\u30fc・\s\-()]+$/.test(stripInvisible(text.normalize('NFKC')));
export const isLatinOnly = (text: string) =>
  /^[A-Za-z][A-Za-z\s.,'&-]*$/.test(stripInvisible(text.normalize('NFKC')));
