/**
 * The typed name tables (src/names/tables.ts): every table of data/names/ loads with its
 * columns checked, and a table with a wrong header, a missing or extra column, or a value its
 * column does not allow stops the load naming the file, the line and the reason.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  branchPlaceColumns,
  branchWordColumns,
  kanjiVariantColumns,
  latinLetterColumns,
  legalFormColumns,
  loanwordColumns,
  readTable,
  symbolWordColumns,
} from '../../src/names/tables.js';

describe('the tables of data/names load with their columns', () => {
  it('legal forms: every row has a full form and a place', () => {
    const rows = readTable('legal-forms.tsv', legalFormColumns);
    expect(rows.length).toBeGreaterThan(100);
    expect(rows).toContainEqual({ from: '㈱', to: '株式会社', where: 'any' });
    expect(rows).toContainEqual({
      from: 'トクテイヒエイリカツドウホウジン',
      to: '特定非営利活動法人',
      where: 'any',
    });
    expect(new Set(rows.map((row) => row.where))).toEqual(new Set(['any', 'edge', 'start', 'end']));
  });

  it('branch words: a kind and a site flag each', () => {
    const rows = readTable('branch-words.tsv', branchWordColumns);
    expect(rows).toContainEqual({ word: '工場', alone: 'no', site: 'yes' });
    expect(rows).toContainEqual({ word: '事務所', alone: 'no', site: 'no' });
    expect(readTable('branch-places.tsv', branchPlaceColumns)).toContainEqual({ place: '神奈川県' });
  });

  it('the spoken tables: 26 letters, loanwords, symbols', () => {
    const letters = readTable('latin-letters.tsv', latinLetterColumns);
    expect(letters.map((row) => row.letter).join('')).toBe('abcdefghijklmnopqrstuvwxyz');
    expect(letters).toContainEqual({ letter: 'w', name: 'ダブリュー' });
    const words = readTable('loanwords.tsv', loanwordColumns);
    expect(words).toContainEqual({ english: 'holdings', katakana: 'ホールディングス' });
    expect(new Set(words.map((row) => row.english)).size).toBe(words.length);
    expect(readTable('symbol-words.tsv', symbolWordColumns)).toContainEqual({
      symbol: '&',
      katakana: 'アンド',
    });
  });

  it('kanji variants: five columns', () => {
    const rows = readTable('kanji-variants.tsv', kanjiVariantColumns);
    expect(rows).toContainEqual(expect.objectContaining({ from: '髙', to: '高' }));
  });
});

describe('a broken table stops the load with the file, the line and the reason', () => {
  const folder = mkdtempSync(path.join(tmpdir(), 'name-tables-'));
  afterAll(() => rmSync(folder, { recursive: true, force: true }));
  const load = (content: string) => {
    writeFileSync(path.join(folder, 'forms.tsv'), content);
    return () => readTable('forms.tsv', legalFormColumns, folder);
  };

  it('a place the column does not allow', () => {
    expect(load('# forms\nfrom\tto\twhere\n株式会社\t株式会社\tany\n㈱\t株式会社\tsomewhere\n')).toThrow(
      /forms\.tsv line 4: where "somewhere" is not one of any, edge, start, end/,
    );
  });

  it('an empty value, a missing column, an extra one', () => {
    expect(load('from\tto\twhere\n株式会社\t株式会社\t\n')).toThrow(/line 2: where "" is not one of/);
    expect(load('from\tto\twhere\n\t株式会社\tany\n')).toThrow(/line 2: from is empty/);
    expect(load('from\tto\twhere\n株式会社\t株式会社\n')).toThrow(
      'forms.tsv line 2: 2 columns, expected 3 (from, to, where)',
    );
    // a value of spaces is as empty as none
    expect(load('from\tto\twhere\n \t株式会社\tany\n')).toThrow(/line 2: from is empty/);
    expect(load('from\tto\twhere\n株式会社\t株式会社\tany\tx\n')).toThrow(/line 2: 4 columns, expected 3/);
  });

  it('a header that does not name the columns, or none', () => {
    expect(load('from\twhere\tto\n')).toThrow(
      /line 1: the columns are "from, where, to", expected "from, to, where"/,
    );
    expect(load('# only comments\n')).toThrow(/no header row/);
  });

  it('typed columns: a Latin word, katakana', () => {
    writeFileSync(path.join(folder, 'words.tsv'), 'english\tkatakana\nHoldings\tホールディングス\n');
    expect(() => readTable('words.tsv', loanwordColumns, folder)).toThrow(
      /english "Holdings" is not a lower-case Latin word/,
    );
    // the whole word, not its start
    writeFileSync(path.join(folder, 'words.tsv'), 'english\tkatakana\nholdings-co\tホールディングス\n');
    expect(() => readTable('words.tsv', loanwordColumns, folder)).toThrow(
      /english "holdings-co" is not a lower-case Latin word/,
    );
    writeFileSync(path.join(folder, 'words.tsv'), 'english\tkatakana\nholdings\tほーるでぃんぐす\n');
    expect(() => readTable('words.tsv', loanwordColumns, folder)).toThrow(
      /katakana "ほーるでぃんぐす" is not katakana/,
    );
    // katakana from the first character to the last
    for (const word of ['hdホールディングス', 'ホールディングスhd']) {
      writeFileSync(path.join(folder, 'words.tsv'), `english\tkatakana\nholdings\t${word}\n`);
      expect(() => readTable('words.tsv', loanwordColumns, folder)).toThrow(
        `katakana "${word}" is not katakana`,
      );
    }
  });
});
