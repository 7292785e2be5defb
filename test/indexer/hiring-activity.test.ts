/**
 * Hiring activity (indexer/hiring-activity.ts): the counts as pure functions of a posting
 * history, then on the real engine through the pipeline, the rebuild and the nightly count:
 * postings that start, close and come back over a controlled calendar, the record's
 * `hiringActivity`, the filters, a sort and a facet on it, and the windows moving with the
 * calendar without any posting changing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  companiesDueForActivity,
  fillMissingActivity,
  refreshActivity,
} from '../../indexer/activity-refresh.js';
import {
  addDays,
  countActivity,
  type HistoryEntry,
  historyId,
  japanDay,
  reconcileHistory,
} from '../../indexer/hiring-activity.js';
import { indexNames } from '../../indexer/index-names.js';
import type { SourceRecord } from '../../indexer/source-types.js';
import { watchedValues } from '../../src/saved-searches/membership.js';
import { searchCorporates } from '../../src/search/run-search.js';
import type { Services } from '../../src/services.js';
import { corporate, job, numbers } from '../fixtures/indexer/records.js';
import { setUpServices } from '../support/env.js';
import { writeRecords } from '../support/pipeline-write.js';

function entry(postingId: string, overrides: Partial<HistoryEntry> = {}): HistoryEntry {
  return {
    postingId,
    mediaId: 1,
    startedOn: '2026-11-01',
    firstSeenOn: '2026-11-01',
    closedOn: null,
    ...overrides,
  };
}

describe('the counts (pure)', () => {
  it('knows the Japan day of an instant and moves days across month ends', () => {
    expect(japanDay(new Date('2026-11-30T14:59:59Z'))).toBe('2026-11-30');
    expect(japanDay(new Date('2026-11-30T15:00:00Z'))).toBe('2026-12-01');
    expect(addDays('2026-03-01', -1)).toBe('2026-02-28');
    expect(addDays('2026-12-31', 1)).toBe('2027-01-01');
  });

  it('counts a window of N days as the N days ending on asOf, both edges exact', () => {
    const asOf = '2026-11-29';
    const entries = [
      entry('in7', { startedOn: '2026-11-23' }),
      entry('out7', { startedOn: '2026-11-22' }),
      entry('in30', { startedOn: '2026-10-31' }),
      entry('out30', { startedOn: '2026-10-30' }),
      entry('in90', { startedOn: '2026-09-01' }),
      entry('out90', { startedOn: '2026-08-31' }),
      entry('future', { startedOn: '2026-11-30' }),
    ];
    const activity = countActivity(entries, asOf);
    expect(activity.newPostings7d).toBe(1);
    expect(activity.newPostings30d).toBe(3);
    expect(activity.newPostings90d).toBe(5);
    expect(activity.firstPostedOn).toBe('2026-08-31');
    expect(activity.lastPostedOn).toBe('2026-11-30');
  });

  it('closes a posting gone from jobs today, starts a new one, opens a closed one again', () => {
    const previous = [
      entry('gone'),
      entry('back', { closedOn: '2026-11-10' }),
      entry('stays', { startedOn: '2026-10-01', firstSeenOn: '2026-10-02' }),
    ];
    const open = [
      { id: 'back', mediaId: 1, jobCreatedAt: '2026-11-01T09:00:00+09:00' },
      { id: 'stays', mediaId: 1, jobCreatedAt: '2026-10-01T09:00:00+09:00' },
      { id: 'new', mediaId: 2 },
    ];
    const { entries, changed } = reconcileHistory(previous, open, '2026-11-29');
    const byId = new Map(entries.map((item) => [item.postingId, item]));
    expect(byId.get('gone')?.closedOn).toBe('2026-11-29');
    expect(byId.get('back')?.closedOn).toBeNull();
    // no jobCreatedAt: it started the day the service first saw it
    expect(byId.get('new')).toEqual(
      entry('new', { mediaId: 2, startedOn: '2026-11-29', firstSeenOn: '2026-11-29' }),
    );
    expect(changed.map((item) => item.postingId).sort()).toEqual(['back', 'gone', 'new']);
    // the same postings the same day change nothing
    expect(reconcileHistory(entries, open, '2026-11-29').changed).toEqual([]);
  });

  it('is watched (saved searches) by its counts: the day counted moving alone is no change', () => {
    const counted = countActivity([entry('a', { startedOn: '2026-11-20' })], '2026-11-29');
    const nextDay = { ...counted, asOf: '2026-11-30' };
    const more = countActivity([entry('a', { startedOn: '2026-11-20' }), entry('b')], '2026-11-30');
    const values = (activity: unknown) => watchedValues({ hiringActivity: activity }, ['hiringActivity']);
    expect(values(nextDay)).toEqual(values(counted));
    expect(values(more)).not.toEqual(values(counted));
  });

  it('counts media started and stopped, and the net change', () => {
    const activity = countActivity(
      [
        entry('a', { mediaId: 1, startedOn: '2026-11-20' }),
        entry('b', { mediaId: 2, startedOn: '2026-06-01', closedOn: '2026-11-25' }),
        entry('c', { mediaId: 3, startedOn: '2026-06-01', closedOn: '2026-11-25' }),
        entry('d', { mediaId: 3, startedOn: '2026-07-01' }),
        entry('e', { mediaId: 4, startedOn: '2026-05-01', closedOn: '2026-09-01' }),
      ],
      '2026-11-29',
    );
    expect(activity.media).toEqual([
      { mediaId: 1, openPostings: 1, firstSeenOn: '2026-11-20', lastSeenOn: null },
      { mediaId: 2, openPostings: 0, firstSeenOn: '2026-06-01', lastSeenOn: '2026-11-25' },
      { mediaId: 3, openPostings: 1, firstSeenOn: '2026-06-01', lastSeenOn: null },
      { mediaId: 4, openPostings: 0, firstSeenOn: '2026-05-01', lastSeenOn: '2026-09-01' },
    ]);
    expect(activity.mediaStarted30d).toEqual([1]);
    // medium 3 still has one open: not stopped
    expect(activity.mediaStopped30d).toEqual([2]);
    expect([activity.openPostings, activity.closedPostings30d, activity.netChange30d]).toEqual([2, 2, -1]);
  });
});

// one calendar, day after day: the steps run in order (the suite is shuffled elsewhere)
describe('on the engine: the pipeline, the rebuild and the nightly count', { shuffle: false }, () => {
  let services: Services;
  let clock = new Date();
  const now = () => clock;
  const at = (day: string) => new Date(`${day}T03:00:00Z`);
  const { alpha, beta, gamma } = numbers;
  const p1 = job({ corporateNumber: alpha, mediaId: 3, jobCreatedAt: '2026-11-18T10:00:00+09:00' });
  const p2 = job({ corporateNumber: alpha, mediaId: 1, jobCreatedAt: '2026-11-05T10:00:00+09:00' });
  const p3 = job({ corporateNumber: alpha, mediaId: 3, jobCreatedAt: '2026-08-01T10:00:00+09:00' });
  const q1 = job({ corporateNumber: beta, mediaId: 2, jobCreatedAt: '2026-11-19T10:00:00+09:00' });

  const write = (day: string, records: SourceRecord[]) => {
    clock = at(day);
    return writeRecords(services, records, now);
  };

  async function activities(
    body: Record<string, unknown> = {},
  ): Promise<Record<string, Record<string, unknown>>> {
    const answer = await searchCorporates(services, {
      limit: 10,
      fields: ['corporateNumber', 'hiringActivity'],
      ...body,
    });
    return Object.fromEntries(
      answer.results.map((record) => [
        String(record.corporateNumber),
        record.hiringActivity as Record<string, unknown>,
      ]),
    );
  }

  async function numbersOf(body: Record<string, unknown>): Promise<string[]> {
    const answer = await searchCorporates(services, { limit: 10, fields: ['corporateNumber'], ...body });
    return answer.results.map((record) => String(record.corporateNumber));
  }

  beforeAll(async () => {
    services = await setUpServices('hiring-activity');
    await write('2026-11-20', [
      corporate({ corporateNumber: alpha, name: '株式会社アルファ' }),
      corporate({ corporateNumber: beta, name: '株式会社ベータ' }),
      corporate({ corporateNumber: gamma, name: '株式会社ガンマ' }),
      p1,
      p2,
      p3,
      q1,
    ]);
  });
  afterAll(async () => {
    await services?.close();
  });

  it('counts every company as of the day of its rebuild, in the record', async () => {
    const found = await activities();
    expect(found[alpha]).toEqual({
      asOf: '2026-11-20',
      openPostings: 3,
      newPostings7d: 1,
      newPostings30d: 2,
      newPostings90d: 2,
      closedPostings30d: 0,
      netChange30d: 2,
      firstPostedOn: '2026-08-01',
      lastPostedOn: '2026-11-18',
      media: [
        { mediaId: 1, openPostings: 1, firstSeenOn: '2026-11-05', lastSeenOn: null },
        { mediaId: 3, openPostings: 2, firstSeenOn: '2026-08-01', lastSeenOn: null },
      ],
      mediaStarted30d: [1],
      mediaStopped30d: [],
    });
    expect(found[beta]).toMatchObject({ openPostings: 1, newPostings7d: 1, mediaStarted30d: [2] });
    // a company without postings has the count of none, from its creation
    expect(found[gamma]).toMatchObject({
      asOf: '2026-11-20',
      openPostings: 0,
      firstPostedOn: null,
      media: [],
    });
  });

  it('remembers a posting the feed deleted: closed that day, its medium stopped', async () => {
    await write('2026-11-21', [{ type: 'delete_job', id: p2.id }]);
    const found = await activities();
    expect(found[alpha]).toMatchObject({
      asOf: '2026-11-21',
      openPostings: 2,
      newPostings30d: 2,
      closedPostings30d: 1,
      netChange30d: 1,
      mediaStarted30d: [1],
      mediaStopped30d: [1],
    });
    const names = indexNames(services.config.indexPrefix);
    const { body } = await services.opensearch.get({
      index: names.postingHistory,
      id: historyId(alpha, p2.id),
    });
    expect(body._source).toMatchObject({
      closedOn: '2026-11-21',
      startedOn: '2026-11-05',
      firstSeenOn: '2026-11-20',
    });
  });

  it('filters, sorts and counts facets on it', async () => {
    expect(await numbersOf({ hiringStoppedMediaIdOr: [1] })).toEqual([alpha]);
    expect((await numbersOf({ hiringStartedMediaIdNot: [1] })).sort()).toEqual([beta, gamma].sort());
    expect((await numbersOf({ hiringNewPostings7dMin: 1 })).sort()).toEqual([alpha, beta].sort());
    expect(await numbersOf({ hiringNetChange30dMax: 0 })).toEqual([gamma]);
    expect(await numbersOf({ hiringClosedPostings30dMin: 1, hiringOpenPostingsMax: 2 })).toEqual([alpha]);
    expect(await numbersOf({ hiringFirstPostedOnTo: '2026-08-01' })).toEqual([alpha]);
    expect(await numbersOf({ hiringLastPostedOnFrom: '2026-11-19' })).toEqual([beta]);
    expect(await numbersOf({ sort: { field: 'hiringOpenPostings', order: 'desc' } })).toEqual([
      alpha,
      beta,
      gamma,
    ]);
    const answer = await searchCorporates(services, { limit: 1, facets: ['hiringStartedMediaId'] });
    expect(answer.facets?.hiringStartedMediaId?.map(({ value, count }) => [value, count])).toEqual([
      [1, 1],
      [2, 1],
    ]);
  });

  it('moves the windows with the calendar: the nightly count of the companies whose windows hold something', async () => {
    // 2026-11-27: p1 (started 11-18) and q1 (11-19) are out of the 7-day window; no posting changed
    const night = at('2026-11-27');
    expect(
      (await companiesDueForActivity(services.opensearch, services.config.indexPrefix, night)).sort(),
    ).toEqual([alpha, beta].sort());
    const refreshed = await refreshActivity(services.opensearch, services.config.indexPrefix, { now: night });
    expect(refreshed).toMatchObject({ filled: 0, failures: 0 });
    await services.opensearch.indices.refresh({ index: indexNames(services.config.indexPrefix).corporates });
    const found = await activities();
    expect(found[alpha]).toMatchObject({
      asOf: '2026-11-27',
      newPostings7d: 0,
      newPostings30d: 2,
      closedPostings30d: 1,
    });
    expect(found[beta]).toMatchObject({ asOf: '2026-11-27', newPostings7d: 0 });
    // nothing in its windows: not counted again, its count holds
    expect(found[gamma]?.asOf).toBe('2026-11-20');
    // counted today: not due again the same day
    expect(await companiesDueForActivity(services.opensearch, services.config.indexPrefix, night)).toEqual(
      [],
    );
  });

  it('opens a posting that comes back, and counts companies written before the activity existed', async () => {
    await write('2026-11-28', [{ ...p2, type: 'job' }]);
    // open again: its close no longer counts
    expect((await activities())[alpha]).toMatchObject({
      openPostings: 3,
      mediaStopped30d: [],
      closedPostings30d: 0,
    });
    const names = indexNames(services.config.indexPrefix);
    // as an earlier version left them: beta (with a posting) and gamma (without) have no count
    await services.opensearch.updateByQuery({
      index: names.corporates,
      refresh: true,
      body: {
        query: { terms: { corporateNumber: [beta, gamma] } },
        script: {
          source: "ctx._source.remove('hiringActivity'); ctx._source.remove('hiringActivityRecord')",
        },
      },
    });
    expect((await activities())[gamma]).toBeNull();
    const day = at('2026-11-28');
    expect(await companiesDueForActivity(services.opensearch, services.config.indexPrefix, day)).toEqual([
      beta,
    ]);
    expect(await fillMissingActivity(services.opensearch, services.config.indexPrefix, day)).toBe(1);
    await refreshActivity(services.opensearch, services.config.indexPrefix, { now: day });
    await services.opensearch.indices.refresh({ index: names.corporates });
    const found = await activities();
    expect(found[beta]).toMatchObject({ asOf: '2026-11-28', openPostings: 1 });
    expect(found[gamma]).toMatchObject({ asOf: '2026-11-28', openPostings: 0 });
  });
});
