/**
 * Dates decided by the Japanese calendar day, pinned at the instants where a UTC day and a
 * Japan day part: 23:59:59 and 00:00:00 in Japan (14:59:59Z and 15:00:00Z), month ends, a
 * leap year and the year end. The clock is an argument, so these never depend on when the
 * suite runs.
 */
import { describe, expect, it } from 'vitest';
import { isRecent, searchableSince } from '../../indexer/transform.js';
import { exportFileName } from '../../src/search/export.js';
import { clearOfJapanMidnight, msToJapanMidnight } from '../support/japan-day.js';

/** An instant written as Japan wall-clock time. */
const japan = (wall: string) => new Date(`${wall}+09:00`);

describe('the export file name is dated by the Japan day', () => {
  it.each([
    ['2026-11-30T23:59:59', 'corporates-2026-11-30.csv'],
    ['2026-12-01T00:00:00', 'corporates-2026-12-01.csv'],
    ['2026-12-31T23:59:59', 'corporates-2026-12-31.csv'],
    ['2027-01-01T00:00:00', 'corporates-2027-01-01.csv'],
    ['2028-02-29T00:00:00', 'corporates-2028-02-29.csv'],
  ])('at %s in Japan: %s', (wall, name) => {
    expect(exportFileName('corporates', 'csv', japan(wall))).toBe(name);
  });

  it('jsonl exports end in .jsonl; the job index names its file', () => {
    expect(exportFileName('jobs', 'jsonl', japan('2026-12-01T00:00:00'))).toBe('jobs-2026-12-01.jsonl');
  });
});

describe('the detail-text window starts at 00:00 in Japan, one calendar month back', () => {
  it.each([
    // the last second of a Japan day and the first of the next
    ['2026-11-22T23:59:59', '2026-10-22T00:00:00'],
    ['2026-11-23T00:00:00', '2026-10-23T00:00:00'],
    // month ends: the day past the shorter month clamps to its last day
    ['2026-03-30T23:59:59', '2026-02-28T00:00:00'],
    ['2026-03-31T00:00:00', '2026-02-28T00:00:00'],
    ['2026-03-31T23:59:59', '2026-02-28T00:00:00'],
    ['2026-04-01T00:00:00', '2026-03-01T00:00:00'],
    ['2028-03-31T00:00:00', '2028-02-29T00:00:00'],
    ['2026-05-31T12:00:00', '2026-04-30T00:00:00'],
    // the year end
    ['2025-12-31T23:59:59', '2025-11-30T00:00:00'],
    ['2026-01-01T00:00:00', '2025-12-01T00:00:00'],
  ])('at %s in Japan: from %s in Japan', (now, since) => {
    expect(searchableSince(japan(now)).toISOString()).toBe(japan(since).toISOString());
  });

  it('a text collected at the first instant of the window is recent, one a millisecond earlier is not', () => {
    const now = japan('2026-04-01T00:00:00');
    const since = japan('2026-03-01T00:00:00').getTime();
    expect(isRecent(new Date(since).toISOString(), now)).toBe(true);
    expect(isRecent(new Date(since - 1).toISOString(), now)).toBe(false);
    // one second earlier the window still reaches back to 02-28 (03-31 -> 02-28)
    expect(isRecent(new Date(since - 1).toISOString(), japan('2026-03-31T23:59:59'))).toBe(true);
    expect(isRecent(null, now)).toBe(false);
  });
});

describe('files on the engine clock wait past an imminent Japan midnight', () => {
  it('the time to the next 00:00 in Japan', () => {
    expect(msToJapanMidnight(japan('2026-11-30T23:59:59').getTime())).toBe(1000);
    expect(msToJapanMidnight(japan('2026-12-01T00:00:00').getTime())).toBe(86_400_000);
    expect(msToJapanMidnight(japan('2026-12-01T00:00:01').getTime())).toBe(86_399_000);
    expect(msToJapanMidnight(Date.parse('2026-11-30T14:00:00Z'))).toBe(3_600_000);
  });

  it('waits only within the margin, and then past midnight', async () => {
    expect(await clearOfJapanMidnight(60_000, () => japan('2026-11-30T23:58:00').getTime())).toBe(0);
    expect(await clearOfJapanMidnight(60_000, () => japan('2026-11-30T23:59:59.900').getTime())).toBe(1100);
  });
});
