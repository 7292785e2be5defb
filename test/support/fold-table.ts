/**
 * The text-fold table of test/fixtures/text-fold/fold-table.tsv (written from Python's Unicode
 * data by gen_fold_table.py beside it): one row per sampled character or pair, with the fold
 * the project promises, NFKC alone, and why the two differ.
 */
import { readFileSync } from 'node:fs';

export interface FoldRow {
  className: string;
  input: string;
  expected: string;
  nfkc: string;
  /** '' where the fold is NFKC; else a reason named in `reasons` */
  differs: string;
  /** the input for a reader: invisible and combining characters as <U+XXXX> */
  shown: string;
}

const fromHex = (hex: string) =>
  hex === '' ? '' : String.fromCodePoint(...hex.split(' ').map((code) => Number.parseInt(code, 16)));

export function readFoldTable(): { rows: FoldRow[]; reasons: Map<string, string> } {
  const text = readFileSync(new URL('../fixtures/text-fold/fold-table.tsv', import.meta.url), 'utf8');
  const reasons = new Map<string, string>();
  const rows: FoldRow[] = [];
  for (const line of text.split('\n')) {
    const reason = /^# reason (\S+): (.+)$/.exec(line);
    if (reason) reasons.set(reason[1] as string, reason[2] as string);
    if (line === '' || line.startsWith('#') || line.startsWith('class\t')) continue;
    const [className = '', input = '', expected = '', nfkc = '', differs = '', shown = ''] = line.split('\t');
    rows.push({
      className,
      input: fromHex(input),
      expected: fromHex(expected),
      nfkc: fromHex(nfkc),
      differs,
      shown,
    });
  }
  return { rows, reasons };
}
