/**
 * The name tables of data/names/, read as typed rows and checked when they load: every file
 * names its columns in its first row, and a row with a missing column, an extra one or a value
 * its column does not allow stops the load with the file, the line and the reason. A typo in a
 * table (a legal form with no place, a branch word of an unknown kind) is an error at start,
 * never a silently wider fold.
 *
 *   readTable('legal-forms.tsv', legalFormColumns)
 *   -> [{from: '株式会社', to: '株式会社', where: 'any'}, {from: '(株)', ...}, ...]
 *   a row '株式会社\t株式会社\tsomewhere' -> Error('data/names/legal-forms.tsv line 13: where
 *   "somewhere" is not one of any, edge, start, end')
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { projectRoot } from '../project-root.js';

/** A column's rule: the value as read -> the typed value, or throws a reason. */
type Column<T> = (value: string) => T;

type Row<C extends Record<string, Column<unknown>>> = { [K in keyof C]: ReturnType<C[K]> };

/** Any text that is not empty. */
export const text: Column<string> = (value) => {
  if (value.trim() === '') throw new Error('is empty');
  return value;
};

/** One of the listed words. */
export function oneOf<T extends string>(...words: T[]): Column<T> {
  return (value) => {
    if (!(words as string[]).includes(value)) throw new Error(`"${value}" is not one of ${words.join(', ')}`);
    return value as T;
  };
}

/** Lower-case Latin letters (a word or a letter as the key folds it). */
export const latinWord: Column<string> = (value) => {
  if (!/^[a-z][a-z0-9]*$/.test(value)) throw new Error(`"${value}" is not a lower-case Latin word`);
  return value;
};

/** Katakana only (with the long-vowel mark and the middle dot). */
export const katakana: Column<string> = (value) => {
  if (!/^[\u30a1-\u30fa\u30fc\u30fb]+$/u.test(value)) throw new Error(`"${value}" is not katakana`);
  return value;
};

/**
 * The rows of data/names/FILE: '#' lines are comments, the first other line names the columns
 * (it must name exactly `columns`, in order), then one row a line, tab-separated.
 */
export function readTable<C extends Record<string, Column<unknown>>>(
  file: string,
  columns: C,
  folder = path.join(projectRoot, 'data', 'names'),
): Row<C>[] {
  const where = path.relative(projectRoot, path.join(folder, file));
  const lines = readFileSync(path.join(folder, file), 'utf8').split('\n');
  const names = Object.keys(columns);
  const rows: Row<C>[] = [];
  let header: string[] | undefined;
  lines.forEach((line, index) => {
    if (line === '' || line.startsWith('#')) return;
    const fields = line.split('\t');
    const at = `${where} line ${index + 1}`;
    if (header === undefined) {
      header = fields;
      if (fields.join('\t') !== names.join('\t'))
        throw new Error(`${at}: the columns are "${fields.join(', ')}", expected "${names.join(', ')}"`);
      return;
    }
    if (fields.length !== names.length)
      throw new Error(`${at}: ${fields.length} columns, expected ${names.length} (${names.join(', ')})`);
    const row: Record<string, unknown> = {};
    names.forEach((name, position) => {
      try {
        row[name] = (columns[name] as Column<unknown>)(fields[position] as string);
      } catch (error) {
        throw new Error(`${at}: ${name} ${(error as Error).message}`);
      }
    });
    rows.push(row as Row<C>);
  });
  if (header === undefined) throw new Error(`${where}: no header row`);
  return rows;
}

export const legalFormColumns = {
  from: text,
  to: text,
  where: oneOf('any', 'edge', 'start', 'end'),
};

export const branchWordColumns = {
  word: text,
  alone: oneOf('glued', 'separated', 'no'),
  site: oneOf('yes', 'no'),
};

export const branchPlaceColumns = { place: text };

export const kanjiVariantColumns = {
  from: text,
  to: text,
  from_code: text,
  to_code: text,
  source: text,
};

export const latinLetterColumns = { letter: latinWord, name: katakana };

export const loanwordColumns = { english: latinWord, katakana };

export const symbolWordColumns = { symbol: text, katakana };
