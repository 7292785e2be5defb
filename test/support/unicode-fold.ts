/**
 * The tests' own text fold, from Unicode's data as Node ships it (String.prototype.normalize,
 * toUpperCase/toLowerCase and the Default_Ignorable_Code_Point property), never from the
 * product's table or src/text. The engine's fold test (test/text/text-fold.test.ts) checks the
 * engine against it code point by code point; the property test uses it as its oracle.
 *   'ＡＢＣ' -> 'abc', 'ｶﾞ' -> 'ガ', '㈱' -> '(株)', 'Ⅲ' -> 'iii', 'a\u200bb' -> 'ab'
 */
const ignorable = /\p{Default_Ignorable_Code_Point}/gu;

/** Ignorables dropped, NFKC, upper then lower case, NFKC, until stable. */
export function unicodeFold(text: string): string {
  let current = text;
  for (;;) {
    const next = current
      .replace(ignorable, '')
      .normalize('NFKC')
      .toUpperCase()
      .toLowerCase()
      .normalize('NFKC')
      .replace(ignorable, '');
    if (next === current) return next;
    current = next;
  }
}
