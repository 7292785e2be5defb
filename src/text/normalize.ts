/**
 * The query side of the one text normaliser. The index side is the `width_fold` char filter
 * plus `lowercase` in mappings/analysis.json, generated from the same Unicode NFKC tables,
 * so `normalizeText('ＡＢＣ') === 'abc'` matches what the analyzer indexed for "ABC".
 */
export function normalizeText(text: string): string {
  return text.normalize('NFKC').toLowerCase();
}
