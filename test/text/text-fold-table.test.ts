/**
 * The text fold (src/text/normalize.ts: the `text_fold` rules of mappings/analysis.json, which
 * the engine applies to indexed and query text alike) against a table made from Python's
 * Unicode data: test/fixtures/text-fold/fold-table.tsv, written by
 * test/fixtures/text-fold/gen_fold_table.py (run by hand; this test needs no Python).
 *
 * The product's rules come from Node's ICU (scripts/gen-text-fold.ts) and the tests' own fold
 * (test/support/unicode-fold.ts) from Node too; this table is the one expectation that comes
 * from elsewhere: Python's `unicodedata` (NFKC, full case mappings) and the Unicode Character
 * Database's DerivedCoreProperties.txt (default-ignorable code points). A row says where the
 * promised fold differs from plain NFKC, and why (case folded, ignorable dropped). The engine's
 * own analyzer is checked against the same table in test/text/text-fold.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { foldText } from '../../src/text/normalize.js';
import { readFoldTable } from '../support/fold-table.js';

const { rows, reasons } = readFoldTable();
const classes = [...new Set(rows.map((row) => row.className))];

describe('the table itself', () => {
  it('samples every class the fold must handle, each in full where the brief is "all"', () => {
    const count = (name: string) => rows.filter((row) => row.className === name).length;
    // U+FF61..U+FF9F: every half-width katakana, mark and punctuation
    expect(count('half-width kana')).toBe(63);
    expect(count('full-width ASCII')).toBe(94);
    // U+F900..U+FAFF and U+2F800..U+2FA1D: every assigned compatibility ideograph
    expect(count('compatibility ideographs')).toBeGreaterThan(900);
    expect(classes).toEqual(
      expect.arrayContaining([
        'half-width kana + voiced mark',
        'enclosed CJK letters (circled, parenthesised: ㈱)',
        'variant kanji of the name key (not folded by the text fold)',
        'default-ignorable code points',
      ]),
    );
  });

  it('names a reason exactly where the fold differs from NFKC, and the reason is explained', () => {
    for (const row of rows) {
      expect(row.differs !== '', row.shown).toBe(row.expected !== row.nfkc);
      if (row.differs !== '') expect(reasons.has(row.differs), row.differs).toBe(true);
    }
  });

  it("Python's NFKC and Node's agree on every row (the two Unicode data sets used)", () => {
    const disagree = rows.filter((row) => row.input.normalize('NFKC') !== row.nfkc).map((row) => row.shown);
    expect(disagree).toEqual([]);
  });
});

describe('foldText against the table', () => {
  it.each(classes)('%s', (className) => {
    const wrong = rows
      .filter((row) => row.className === className)
      .filter((row) => foldText(row.input) !== row.expected)
      .map(
        (row) =>
          `${row.shown}: foldText ${JSON.stringify(foldText(row.input))}, expected ${JSON.stringify(row.expected)}${row.differs ? ` (${row.differs})` : ''}`,
      );
    expect(wrong).toEqual([]);
  });

  it('spot rows read as the contract says (docs/api.md "Filters"): ㈱ = (株), ＡＢＣ = abc, ｶﾌﾞｼｷ = カブシキ', () => {
    const expectedOf = (input: string) => rows.find((row) => row.input === input)?.expected;
    expect(expectedOf('㈱')).toBe('(株)');
    expect(expectedOf('Ａ')).toBe('a');
    expect(expectedOf('ｶﾞ')).toBe('ガ');
    expect(expectedOf('ｶﾌﾞｼｷｶﾞｲｼｬ')).toBe('カブシキガイシャ');
    // the name key's variant kanji are not the text fold's business
    expect(expectedOf('髙')).toBe('髙');
  });
});
