/**
 * A ledger entry as the Redis scripts write it (src/limits/ledger-entry.ts): read back with
 * its tag's fields, a tag that is not JSON read as none, and a malformed entry refused.
 */
import { describe, expect, it } from 'vitest';
import { encodeTag, entryFromFields } from '../../src/limits/ledger-entry.js';

const fields = (extra: string[] = []) => [
  'id',
  'charge:r-1',
  'kind',
  'charge',
  'user',
  'u-1',
  'credits',
  '-3',
  'at',
  String(Date.UTC(2026, 10, 29, 12)),
  ...extra,
];

describe('entryFromFields', () => {
  it("reads a charge with its tag's fields, rows and reserved", () => {
    const tag = encodeTag({
      operation: 'POST /corporates/match-jobs',
      matchJobId: 'job-1',
      keyId: 'key_1',
      requestId: 'r',
    });
    expect(entryFromFields(fields(['tag', tag, 'rows', '12', 'reserved', '5']))).toEqual({
      id: 'charge:r-1',
      kind: 'charge',
      userId: 'u-1',
      credits: -3,
      at: '2026-11-29T12:00:00.000Z',
      operation: 'POST /corporates/match-jobs',
      matchJobId: 'job-1',
      keyId: 'key_1',
      requestId: 'r',
      rows: 12,
      reserved: 5,
    });
  });

  it('reads a tag that is not JSON, or of the wrong types, as none', () => {
    expect(entryFromFields(fields(['tag', '{not json']))).not.toHaveProperty('operation');
    expect(entryFromFields(fields(['tag', '{"operation": 7, "matchJobId": []}']))).not.toHaveProperty(
      'matchJobId',
    );
    expect(encodeTag(undefined)).toBe('');
  });

  it.each([
    ['no id', fields().slice(2)],
    ['another kind', fields().map((v) => (v === 'charge' ? 'refund' : v))],
    ['credits not whole', fields().map((v) => (v === '-3' ? '-2.5' : v))],
    ['no time', fields().slice(0, 8)],
  ])('refuses an entry with %s', (_name, list) => {
    expect(entryFromFields(list)).toBeUndefined();
  });
});
