/**
 * The one-edit prefixes of a mistyped suggest text (src/names/suggest.ts), without servers:
 * which regular expressions a typed key becomes. Their effect on real keys is tested through
 * the engine in test/names/suggest.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { oneEditPrefixes } from '../../src/names/suggest.js';

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
