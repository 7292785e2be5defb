/**
 * The one-edit prefixes of a mistyped suggest text (src/names/suggest.ts), without servers:
 * which regular expressions a typed key becomes, and which hits are kept, one per name key. Their effect on real keys is tested through
 * the engine in test/names/suggest.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { queryKeys } from '../../src/names/keys.js';
import { firstOfEachKey, nearQueries, oneEditPrefixes } from '../../src/names/suggest.js';

/** Whether a pattern (the engine's: the whole key must match) matches `key`, read as a JS RegExp. */
function matches(patterns: string[], key: string): boolean {
  return patterns.some((pattern) => new RegExp(`^(?:${pattern})$`, 'u').test(key));
}

describe('oneEditPrefixes', () => {
  it('matches the keys that start one edit away, and not two', () => {
    const patterns = oneEditPrefixes('サクラ精');
    for (const key of ['サクヨ精機', 'サクラ精', 'サラ精機'.replace('サラ', 'サク'), 'サクラ精密機械'])
      expect(matches(patterns, key), key).toBe(true);
    // typed サクヨ精: the real key one substitution away
    expect(matches(oneEditPrefixes('サクヨ精'), 'サクラ精機')).toBe(true);
    // typed サククラ精: one character too many
    expect(matches(oneEditPrefixes('サククラ精'), 'サクラ精機')).toBe(true);
    // typed サラ精機: one left out
    expect(matches(oneEditPrefixes('サラ精機'), 'サクラ精機')).toBe(true);
    // two edits away, or the same characters elsewhere than at the start: no
    expect(matches(oneEditPrefixes('サヨヨ精'), 'サクラ精機')).toBe(false);
    expect(matches(oneEditPrefixes('サクラ精'), '日本サクラ精機')).toBe(false);
  });

  it('escapes every character that is not a letter or digit, so a key is always literal', () => {
    const patterns = oneEditPrefixes('a+b');
    // the last character wrong: the + kept as a literal
    expect(patterns).toContain('a\\+..*');
    // no + or . of the key left unescaped to act as an operator
    for (const pattern of patterns)
      expect(pattern.replace(/\\./g, '').replace(/\.\*?/g, '')).toMatch(/^[ab]*$/);
    expect(matches(patterns, 'aaaa')).toBe(false); // as an operator, a+ would take it
    expect(matches(patterns, 'a+xb')).toBe(true);
  });

  it('compares a long key by its first 12 characters', () => {
    const patterns = oneEditPrefixes('アイウエオカキクケコサシスセソ');
    expect(patterns.every((pattern) => !pattern.includes('ス'))).toBe(true);
    expect(matches(patterns, 'アイウエオカキクケコサシ')).toBe(true);
  });
});

describe('firstOfEachKey', () => {
  const hit = (id: string, key?: string) => ({
    _id: id,
    fields: key === undefined ? {} : { nameKey: [key] },
  });

  it('keeps the first hit of each name key, in order', () => {
    const hits = [
      hit('1', 'まるか物流'),
      hit('2', 'まるか物流'),
      hit('3', 'まるこ物流'),
      hit('4', 'まるか物流'),
    ];
    expect(firstOfEachKey(hits).map((entry) => entry._id)).toEqual(['1', '3']);
  });

  it('a hit without a key has nothing to share: each is kept', () => {
    expect(
      firstOfEachKey([hit('1'), hit('2', 'a'), hit('3'), hit('4', 'a')]).map((entry) => entry._id),
    ).toEqual(['1', '2', '3']);
  });
});

describe('nearQueries', () => {
  it('compares a typed key of 6 characters or more by its 3-character grams alone', () => {
    // one-edit prefixes first, then one gram clause per key
    const [oneEdit, grams] = nearQueries(queryKeys('マルカ物留サ'));
    expect(JSON.stringify(oneEdit)).toContain('regexp');
    expect(grams).toEqual({
      bool: {
        should: ['まるか', 'るか物', 'か物留', '物留さ'].map((gram) => ({ term: { 'nameKey.grams': gram } })),
        minimum_should_match: '35%',
      },
    });
    // 5 characters: 2- and 3-character grams, through the field's analyzer
    expect(nearQueries(queryKeys('マルカ物留'))[1]).toEqual({
      match: { 'nameKey.grams': { query: 'まるか物留', minimum_should_match: '35%' } },
    });
  });

  it('a kana text: its name and reading keys alike, each by its 3-character grams from 6', () => {
    const grams = nearQueries(queryKeys('マルカブツリ')).slice(1);
    expect(grams.map((query) => /"(\w+\.grams)"/.exec(JSON.stringify(query))?.[1])).toEqual([
      'nameKey.grams',
      'readingKey.grams',
    ]);
    for (const query of grams) expect(query).toHaveProperty('bool.should.length', 4);
  });

  it('asks nothing for keys under 4 characters', () => {
    expect(nearQueries(queryKeys('マルカ'))).toEqual([]);
  });
});
