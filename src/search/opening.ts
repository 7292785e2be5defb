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
 * ./records.ts `openingFetchFor`). test/description-opening.test.ts compares both answers on
 * the engine for texts of every class named here.
 *
 *   descriptionOpening(null)                      // ''  (no text: no snippet)
 *   descriptionOpening('<b>Java</b> 経験者歓迎')  // '&lt;b&gt;Java&lt;&#x2F;b&gt; 経験者歓迎'
 *   descriptionOpening('a'.repeat(170))           // undefined: the boundary is inside a word
 */

export const openingField = 'descriptionOpening';
/** The highlighter's `no_match_size` (./snippets.ts). */
export const openingSize = 160;

/**
 * How the word iterator treats a character, as far as its boundary is certain: runs of kanji,
 * of hiragana and of katakana are words of their own; `solo` characters are one-character
 * words (punctuation no rule of the iterator names); `space` runs join a following CR/LF;
 * `other` is any character whose own class is not needed (a boundary next to it is decided by
 * its neighbour); `unknown` makes the boundary uncertain.
 */
type Kind = 'kanji' | 'hira' | 'kata' | 'solo' | 'space' | 'cr' | 'lf' | 'other' | 'unknown' | 'low';

const soloCharacters = new Set(
  '!()*+/:;<=>?@[\\]{|}~、。〈〉《》「」『』【】〒〔〕〖〗〘〙〚〛！（）／：；＜＝＞？＠※■□◆◇○●△▲▽▼★☆',
);

/** Blocks where the iterator's Japanese classes (and their variants) lie, beyond the plain runs. */
const uncertainBlocks = /[\u2e80-\u2fdf\u3000-\u30ff\u3100-\u4dbf\u9fa6-\u9fff\ue000-\uf8ff\uf900-\ufaff]/;
/** Marks, format and control characters, separators other than the plain space, unassigned. */
const uncertainCategories = /[\p{Mn}\p{Me}\p{Cf}\p{Zs}\p{Zl}\p{Zp}\p{Cc}\p{Co}\p{Cn}]/u;

function bmpKind(unit: number, char: string): Kind {
  if (unit === 0x3005 || (unit >= 0x4e00 && unit <= 0x9fa5) || (unit >= 0xf900 && unit <= 0xfa2d))
    return 'kanji';
  if (unit >= 0x3041 && unit <= 0x3094) return 'hira';
  if (unit >= 0x30a1 && unit <= 0x30fa) return 'kata';
  if (soloCharacters.has(char)) return 'solo';
  if (char === ' ' || char === '\t') return 'space';
  if (char === '\r') return 'cr';
  if (char === '\n') return 'lf';
  if (uncertainBlocks.test(char) || uncertainCategories.test(char)) return 'unknown';
  return 'other';
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

const runs = new Set<Kind>(['kanji', 'hira', 'kata']);

/** Whether there is a word boundary between two characters: true, false, or undefined (not certain). */
function boundaryBetween(before: Kind, after: Kind): boolean | undefined {
  if (before === 'unknown' || after === 'unknown') return undefined;
  if (runs.has(before) || runs.has(after)) return before !== after;
  if (before === 'solo' || after === 'solo') return true;
  if (before === 'space') return !(after === 'space' || after === 'cr' || after === 'lf');
  if (before === 'cr') return after !== 'lf';
  if (before === 'lf') return true;
  // `other` before: a boundary before whitespace, else it depends on what both are
  return after === 'space' || after === 'cr' || after === 'lf' ? true : undefined;
}

/** Where the excerpt ends: the first word boundary after `openingSize`, or undefined. */
function openingEnd(text: string): number | undefined {
  if (text.length <= openingSize) return text.length;
  let before = kindAt(text, openingSize);
  // the pair's high half before the cut decides the kind of its low half at the cut
  if (before === 'low') before = kindAt(text, openingSize - 1);
  for (let index = openingSize + 1; index < text.length; index++) {
    const after = kindAt(text, index);
    if (after === 'low') continue;
    const boundary = boundaryBetween(before, after);
    if (boundary === undefined) return undefined;
    if (boundary) return index;
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
