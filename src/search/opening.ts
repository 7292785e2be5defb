/**
 * The opening excerpt of a posting's detail text, kept with the document (`descriptionOpening`,
 * a keyword with doc values only) so that a job search without a detail-text condition reads
 * its `descriptionSnippets` from doc values instead of running the highlighter, which reads the
 * text from `_source` (docs/api.md, "Records"; docs/index-documents.md).
 *
 * The excerpt is exactly what the highlighter answers with `no_match_size: 160`
 * (./snippets.ts): the text up to the first word boundary after its 160th UTF-16 unit (the
 * engine's word break iterator, Java's `BreakIterator.getWordInstance`), HTML-escaped as its
 * html encoder escapes, trimmed as Java's `String#trim` trims (every character up to U+0020).
 * Where that boundary is not certain from the characters around it (two Latin letters or
 * digits, a character of a class the iterator's rules do not name plainly: combining marks,
 * most surrogates, the prolonged sound mark 'ー', ...), the excerpt is not written: such a
 * document keeps the highlighter's answer (the search asks the engine again for that page,
 * ./records.ts `openingFetchFor`). test/search/description-opening.test.ts compares both answers on
 * the engine for texts of every class named here.
 *
 *   descriptionOpening(null)                      // ''  (no text: no snippet)
 *   descriptionOpening('<b>Java</b> 経験者歓迎')  // '&lt;b&gt;Java&lt;&#x2F;b&gt; 経験者歓迎'
 *   descriptionOpening('a'.repeat(170))           // undefined: the boundary is inside a word
 */

export { openingField } from '../catalogue/record-fields.js';
/** The highlighter's `no_match_size` (./snippets.ts). */
export const openingSize = 160;

/**
 * How the word iterator treats a character, as far as a boundary next to it is certain (Java's
 * word rules as the engine's JVM applies them; test/search/description-opening.test.ts checks them on
 * the engine): runs of kanji are words; so are runs of hiragana and of katakana, where the
 * prolonged sound mark 'ー' and the middle dot '・' (`kana`) join either run and the first
 * hiragana or katakana decides which; runs of Latin letters, digits and half-width kana
 * (`alnum`) are words; `solo` characters are one-character words (punctuation no rule of the
 * iterator names); `space` runs take a following CR/LF. `other` is a character whose own class
 * is not needed (a boundary next to it is decided by its neighbour, else uncertain); `unknown`
 * makes any boundary next to it uncertain (marks, format characters, characters the rules may
 * count as kanji or kana, most of those outside the BMP).
 */
type Kind =
  | 'kanji'
  | 'hira'
  | 'kata'
  | 'kana'
  | 'alnum'
  | 'solo'
  | 'space'
  | 'cr'
  | 'lf'
  | 'other'
  | 'unknown'
  | 'low';

const soloCharacters = new Set(
  '!()*+/:;<=>?@[\\]{|}~、。〈〉《》「」『』【】〒〔〕〖〗〘〙〚〛！（）／：；＜＝＞？＠※■□◆◇○●△▲▽▼★☆',
);

/** Characters the iterator's Japanese classes (or their variants) may hold, beyond the plain runs. */
const uncertainCharacters =
  /[\u2e80-\u2fdf\u3006\u3007\u3021-\u3029\u3031-\u3035\u303b\u303c\u3095-\u30a0\u30ff\u3100-\u31ff\u3400-\u4dbf\u9fa6-\u9fff\ua000-\ua4cf\ue000-\uf8ff\ufa2e-\ufaff]/;
/** Marks, format and control characters, separators other than the spaces, unassigned. */
const uncertainCategories = /[\p{Mn}\p{Me}\p{Cf}\p{Zs}\p{Zl}\p{Zp}\p{Cc}\p{Co}\p{Cn}]/u;
const alnumCharacters = /[A-Za-z0-9\uff10-\uff19\uff21-\uff3a\uff41-\uff5a\uff66-\uff9f]/;

function japaneseKind(unit: number): Kind | undefined {
  if (unit === 0x3005 || (unit >= 0x4e00 && unit <= 0x9fa5) || (unit >= 0xf900 && unit <= 0xfa2d))
    return 'kanji';
  if ((unit >= 0x3041 && unit <= 0x3094) || unit === 0x309d || unit === 0x309e) return 'hira';
  if ((unit >= 0x30a1 && unit <= 0x30fa) || unit === 0x30fd || unit === 0x30fe) return 'kata';
  if (unit === 0x30fb || unit === 0x30fc) return 'kana';
  return undefined;
}

function bmpKind(unit: number, char: string): Kind {
  const japanese = japaneseKind(unit);
  if (japanese) return japanese;
  if (soloCharacters.has(char)) return 'solo';
  if (char === ' ' || char === '\t' || char === '\u3000' || char === '\u00a0') return 'space';
  if (char === '\r') return 'cr';
  if (char === '\n') return 'lf';
  if (uncertainCharacters.test(char) || uncertainCategories.test(char)) return 'unknown';
  return alnumCharacters.test(char) ? 'alnum' : 'other';
}

/**
 * The kind of the UTF-16 unit at `index`. A pair outside the BMP is certain only as a symbol
 * (`So`, emoji: a one-character word); its low half is `low` (never a boundary before it).
 */
function kindAt(text: string, index: number): Kind {
  const unit = text.charCodeAt(index);
  if (unit >= 0xdc00 && unit <= 0xdfff) {
    const high = text.charCodeAt(index - 1);
    return high >= 0xd800 && high <= 0xdbff ? 'low' : 'unknown';
  }
  if (unit >= 0xd800 && unit <= 0xdbff) {
    const codePoint = text.codePointAt(index) ?? unit;
    return codePoint > 0xffff && /\p{So}/u.test(String.fromCodePoint(codePoint)) ? 'solo' : 'unknown';
  }
  return bmpKind(unit, text.charAt(index));
}

const kanaKinds = new Set<Kind>(['hira', 'kata', 'kana']);
const lineKinds = new Set<Kind>(['space', 'cr', 'lf']);

/**
 * Whether there is a word boundary between two characters, not both kana: true, false, or
 * undefined (not certain).
 */
function boundaryBetween(before: Kind, after: Kind): boolean | undefined {
  if (before === 'unknown' || after === 'unknown') return undefined;
  if (kanaKinds.has(before) || kanaKinds.has(after)) return true;
  if (before === 'kanji' || after === 'kanji') return before !== after;
  if (before === 'solo' || after === 'solo') return true;
  if (before === 'space') return !lineKinds.has(after);
  if (before === 'cr') return after !== 'lf';
  if (before === 'lf') return true;
  if (lineKinds.has(after)) return true;
  // letters and digits run on; next to other punctuation it depends on more than the two
  return before === 'alnum' && after === 'alnum' ? false : undefined;
}

/**
 * The run a kana character at `index` is in: 'hira' or 'kata' by the nearest hiragana or
 * katakana before it with only 'ー' / '・' between, else 'kana' (not decided yet).
 */
function kanaRunAt(text: string, index: number): Kind {
  for (let i = index; i >= 0; i--) {
    const kind = kindAt(text, i);
    if (kind !== 'kana') return kind === 'hira' || kind === 'kata' ? kind : 'kana';
  }
  return 'kana';
}

const digit = /[0-9\uff10-\uff19]/;

/** Whether the unit at `index` is a comma or period with a digit either side (one number). */
function innerNumberMark(text: string, index: number): boolean {
  const mark = text.charAt(index);
  return (
    (mark === ',' || mark === '.') && digit.test(text.charAt(index - 1)) && digit.test(text.charAt(index + 1))
  );
}

/**
 * How far past `openingSize` a word may run before the excerpt is left to the highlighter: a
 * doc value holds at most 32,766 UTF-8 bytes (the engine rejects the whole document beyond
 * that), and one unbroken run (a long kanji or letter run, a URL) could be longer; this keeps
 * the escaped excerpt (at most 6 units for one character) well under it, and bounds the scan.
 */
export const openingScanLimit = 1_000;

/** Where the excerpt ends: the first word boundary after `openingSize`, or undefined. */
function openingEnd(text: string): number | undefined {
  if (text.length <= openingSize) return text.length;
  let before = kindAt(text, openingSize);
  // the pair's high half before the cut decides the kind of its low half at the cut
  if (before === 'low') before = kindAt(text, openingSize - 1);
  // the cut on a number's inner comma or period: inside the number
  if (innerNumberMark(text, openingSize)) before = 'alnum';
  let run = kanaKinds.has(before) ? kanaRunAt(text, openingSize) : 'kana';
  for (let index = openingSize + 1; index < text.length; index++) {
    if (index > openingSize + openingScanLimit) return undefined;
    const after = kindAt(text, index);
    if (after === 'low') continue;
    // a number's inner comma or period: '4,900,000' is one word
    if (innerNumberMark(text, index)) {
      index++;
      continue;
    }
    const bothKana = kanaKinds.has(before) && kanaKinds.has(after);
    const boundary = bothKana
      ? !(after === 'kana' || run === 'kana' || run === after)
      : boundaryBetween(before, after);
    if (boundary === undefined) return undefined;
    if (boundary) return index;
    if (bothKana && run === 'kana') run = after;
    before = after;
  }
  return text.length;
}

/** The html encoder's escapes (Lucene's `SimpleHTMLEncoder`). */
const htmlEscapes: Record<string, string> = {
  '"': '&quot;',
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  "'": '&#x27;',
  '/': '&#x2F;',
};

export function escapeLikeHighlighter(text: string): string {
  return text.replace(/["&<>'/]/g, (char) => htmlEscapes[char] ?? char);
}

/** Java's `String#trim`: every character up to U+0020 off both ends. */
function javaTrim(text: string): string {
  let start = 0;
  let end = text.length;
  while (start < end && text.charCodeAt(start) <= 0x20) start++;
  while (end > start && text.charCodeAt(end - 1) <= 0x20) end--;
  return text.slice(start, end);
}

/**
 * The value written with a `jobs` document: '' when there is no searchable text (no snippet),
 * the excerpt, or undefined when it is not certain (written as null: the highlighter answers).
 * A text holding U+0000 or U+2029 (the highlighter's value separators) is left to it, as is one
 * whose excerpt trims to nothing.
 */
export function descriptionOpening(text: string | null | undefined): string | undefined {
  if (text === null || text === undefined || text === '') return '';
  if (text.includes('\u0000') || text.includes('\u2029')) return undefined;
  const end = openingEnd(text);
  if (end === undefined) return undefined;
  const excerpt = javaTrim(text.slice(0, end));
  return excerpt === '' ? undefined : escapeLikeHighlighter(excerpt);
}
