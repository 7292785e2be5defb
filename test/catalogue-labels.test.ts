/**
 * Every filter of both searches and every value of the filters' enumerations has a Japanese
 * label (src/catalogue/labels.ts), and the console catalogue names the master of every id
 * and market filter, the linked company's included: a filter added to the catalogue without
 * them fails here.
 */
import { describe, expect, it } from 'vitest';
import { consoleCatalogue } from '../src/catalogue/console-catalogue.js';
import { filterLabel, valueLabels } from '../src/catalogue/labels.js';

const searches = consoleCatalogue();

describe('Japanese labels of the catalogue', () => {
  it('label every filter of both searches', () => {
    const missing = searches.flatMap((search) =>
      search.filters
        .filter((filter) => !filterLabel(search.name, filter.key))
        .map((f) => `${search.name}.${f.key}`),
    );
    expect(missing).toEqual([]);
    expect(filterLabel('jobs', 'corporatePrefectureId')).toBe('企業の都道府県（本社）');
    expect(filterLabel('corporates', 'noSuchFilter')).toBeUndefined();
  });

  it('label every value of every enumeration a filter takes', () => {
    const values = searches.flatMap((search) =>
      search.filters.flatMap((filter) => filter.conditions.flatMap((condition) => condition.item.enum ?? [])),
    );
    expect(values.length).toBeGreaterThan(20);
    expect(values.filter((value) => !valueLabels[String(value)])).toEqual([]);
  });

  it('name the master of every id filter and market filter', () => {
    const masterless = searches.flatMap((search) =>
      search.filters
        .filter((filter) => /(Id|marketCode|MarketCode)$/.test(filter.key) && filter.master === undefined)
        .map((filter) => `${search.name}.${filter.key}`),
    );
    expect(masterless).toEqual([]);
  });
});
