/**
 * The shapes that break search, written on purpose at fixed rates (docs/sample-data.md lists
 * them). Rare cases are placed by record number, not drawn, so every set of a few hundred
 * companies or a few thousand postings holds each of them and the rates are exact.
 */

/** `index % every === at`: the record numbers that get a case. */
export interface Schedule {
  every: number;
  at: number;
}

export const hardCaseSchedule = {
  /** company names with ㈱ / （株） / (株) / ㈲ / full-width Latin / half-width kana / Ⅱ: 5% */
  compatibleName: { every: 20, at: 3 },
  /** names of 100-300 characters (one in five exactly 300, the schema's maximum): 0.5% */
  veryLongName: { every: 200, at: 11 },
  /** company names with an old or variant kanji (髙橋, 山﨑, 渡邊, 四國, 會津): 2% */
  oldKanjiName: { every: 50, at: 17 },
  /** company names with ヴ, small kana, ー or ・ (ヴィーナス, ジェイ・ワークス): 2%, firms founded from 1975 */
  kanaShapeName: { every: 50, at: 29 },
  /** company names with 々 (佐々木, 代々木): 2% */
  repeatMarkName: { every: 50, at: 41 },
  /**
   * the name (and reading) of the latest earlier 株式会社, 有限会社 or 合同会社 of the record's
   * own type in another prefecture: up to 1% (generator.ts; none to take: the record keeps its own)
   */
  nameInOtherPrefecture: { every: 100, at: 57 },
  /** the same, from the latest one in the record's own prefecture: up to 1% */
  nameTwiceInPrefecture: { every: 100, at: 58 },
  /** company names that start as a spreadsheet formula would (`formulaNameStarts`, one in turn): 2% */
  formulaName: { every: 50, at: 45 },
  /** company summaries with compatibility characters: 5% */
  compatibleSummary: { every: 20, at: 8 },
  /** posting titles with ①, Ⅱ, ～, full-width digits, half-width kana, ㈱ or ℡: 5% */
  compatibleTitle: { every: 20, at: 5 },
  /** detail texts with ①②③ lists, ～ ranges, ℡, full-width digits, ㈱, half-width kana: 10% */
  compatibleText: { every: 10, at: 4 },
  /** detail texts collected within 10 minutes after the start of the searchable window: 2% */
  textJustInside: { every: 50, at: 7 },
  /** detail texts collected within 10 minutes before the start of the searchable window: 2% */
  textJustOutside: { every: 50, at: 32 },
  /** postings 0-5 of every 200 take each work-location kind in turn, and null */
  everyWorkLocationKind: { every: 200, at: 0 },
} as const satisfies Record<string, Schedule>;

export function scheduled(schedule: Schedule, index: number): boolean {
  return index % schedule.every === schedule.at;
}

/** Which variant of a case a record gets: cycles through them as the record number grows. */
export function variant(schedule: Schedule, index: number, count: number): number {
  return Math.floor(index / schedule.every) % count;
}

const fullKana =
  'ァアィイゥウェエォオカキクケコサシスセソタチッツテトナニヌネノハヒフヘホマミムメモャヤュユョヨラリルレロワヲンー・「」。、';
const halfKana = 'ｧｱｨｲｩｳｪｴｫｵｶｷｸｹｺｻｼｽｾｿﾀﾁｯﾂﾃﾄﾅﾆﾇﾈﾉﾊﾋﾌﾍﾎﾏﾐﾑﾒﾓｬﾔｭﾕｮﾖﾗﾘﾙﾚﾛﾜｦﾝｰ･｢｣｡､';
const voiced = 'ガギグゲゴザジズゼゾダヂヅデドバビブベボ';
const voicedBase = 'カキクケコサシスセソタチツテトハヒフヘホ';
const semiVoiced = 'パピプペポ';
const semiVoicedBase = 'ハヒフヘホ';

/** Full-width katakana to the half-width forms legacy systems still write (ガ -> ｶﾞ). */
export function toHalfWidthKana(text: string): string {
  let out = '';
  for (const char of text) {
    const v = voiced.indexOf(char);
    const p = semiVoiced.indexOf(char);
    if (char === 'ヴ') out += 'ｳﾞ';
    else if (v >= 0) out += `${halfKana[fullKana.indexOf(voicedBase[v] as string)]}ﾞ`;
    else if (p >= 0) out += `${halfKana[fullKana.indexOf(semiVoicedBase[p] as string)]}ﾟ`;
    else {
      const k = fullKana.indexOf(char);
      out += k >= 0 ? halfKana[k] : char;
    }
  }
  return out;
}

/** ASCII letters, digits and punctuation to their full-width forms (A1- -> Ａ１－). */
export function toFullWidth(text: string): string {
  return text.replace(/[!-~]/g, (char) => String.fromCharCode(char.charCodeAt(0) + 0xfee0));
}

export const circledNumbers = ['①', '②', '③', '④', '⑤'];
export const romanNumerals = ['Ⅱ', 'Ⅲ', 'Ⅳ'];

/**
 * How the formula-name companies' names start, one in turn (OWASP "CSV Injection"): four
 * payloads a security probe sent (= + - @), a tab and a carriage return a careless copy leaves
 * in front of a real name, and a full-width ＝ (src/search/export.ts neutralises every one in a
 * CSV cell), each put in front of the company's ordinary name, whatever its type.
 */
export const formulaNameStarts = [
  '=HYPERLINK("http://x","y")',
  '+SUM(1+1)',
  "-2+3+cmd|' /C calc'!A0",
  '@SUM(1+1)',
  '\t',
  '\r',
  '＝SUM(1+1)',
] as const;

/** The name of a formula-name company (`hardCaseSchedule.formulaName`); any other keeps its name. */
export function withFormulaStart(name: string, index: number): string {
  if (!scheduled(hardCaseSchedule.formulaName, index)) return name;
  return `${formulaNameStarts[variant(hardCaseSchedule.formulaName, index, formulaNameStarts.length)]}${name}`;
}
