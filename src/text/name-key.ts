/**
 * The company name key: one definition of "the same name", used wherever a name is compared
 * (indexing, matching, suggest, the exact and partial name filters).
 *
 * INTERFACE FIRST: the folding below is a first cut (NFKC, case, spaces, 株式会社 and its
 * short forms) that the full key replaces behind the same signatures (legal forms of every
 * kind, kana, small kana, ヴ, long vowels, separators, variant kanji, 々, branch words).
 *
 *   nameKey('㈱ マルカ物流') === nameKey('マルカ物流株式会社') === 'まるか物流'  (with the full key)
 */

/** The key of a company name as written; '' when nothing is left (株式会社 alone). */
export function nameKey(name: string): string {
  return name
    .normalize('NFKC')
    .toLowerCase()
    .replace(/株式会社|\(株\)/g, '')
    .replace(/[\s・]/g, '');
}

/** The key of a reading (furigana) in kana; '' when nothing is left. */
export function readingKey(reading: string): string {
  return reading.normalize('NFKC').replace(/[\s・]/g, '');
}

/** The romaji key of a reading in kana ('' when it has none). */
export function romajiKey(_reading: string): string {
  return '';
}

/**
 * The keys a name typed by a user may be compared on: always its name key; its reading key
 * when it is written in kana; its romaji key when it is written in Latin letters.
 */
export function queryKeys(text: string): { name: string; reading?: string; romaji?: string } {
  return { name: nameKey(text) };
}
