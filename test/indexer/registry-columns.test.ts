/**
 * The importer's column list (indexer/registry/format.ts `registryColumns`) against the NTA's
 * published CSV specification written out in test/fixtures/registry/columns.ts: the same 30
 * columns in the same order, position by position. The importer reads a row by position, so a
 * column it moved would put one published field under another's name; the fixtures are written
 * from the published list, and this is where such a move shows by name.
 */
import { describe, expect, it } from 'vitest';
import { registryColumns } from '../../indexer/registry/format.js';
import { publishedColumns } from '../fixtures/registry/columns.js';

describe('the registry columns', () => {
  it('the published list is 30 columns numbered 1-30, each name once', () => {
    expect(publishedColumns.map((column) => column.position)).toEqual(
      Array.from({ length: 30 }, (_, i) => i + 1),
    );
    expect(new Set(publishedColumns.map((column) => column.published)).size).toBe(30);
    expect(new Set(publishedColumns.map((column) => column.importer)).size).toBe(30);
  });

  it("the importer's list is the published one, position by position", () => {
    // each position named by its published name, so a failure reads "9 法人種別: kind" against
    // what the importer has in that place
    const published = publishedColumns.map(
      (column) => `${column.position} ${column.published}: ${column.importer}`,
    );
    const importer = registryColumns.map(
      (name, i) => `${i + 1} ${publishedColumns[i]?.published ?? '(no published column)'}: ${name}`,
    );
    expect(importer).toEqual(published);
  });
});
