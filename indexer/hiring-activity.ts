/**
 * Hiring activity: how a company's postings moved, counted by the company rebuild
 * (./rebuild.ts) from the company's posting history, as of one Japan day.
 *
 * The history (`posting-history`, one document per company and posting, id
 * `<corporateNumber>:<postingId>`) remembers every posting the service has seen on the company,
 * open or closed: the `jobs` index forgets a posting when the feed deletes it, the history keeps
 * it with the day it closed. The rebuild reconciles it with the company's postings in `jobs`
 * (`reconcileHistory`) and counts the activity from it (`countActivity`):
 *
 *   reconcileHistory([{ postingId: 'a', mediaId: 1, startedOn: '2026-11-01', firstSeenOn: '2026-11-01', closedOn: null }],
 *                    [{ id: 'b', mediaId: 2, jobCreatedAt: '2026-11-28T10:00:00+09:00' }], '2026-11-29')
 *   // -> a closed on 2026-11-29 (no longer in jobs), b opened (started 2026-11-28, first seen today)
 *   countActivity(entries, '2026-11-29')
 *   // -> { asOf: '2026-11-29', openPostings: 1, newPostings7d: 1, ..., closedPostings30d: 1,
 *   //      netChange30d: 0, media: [{ mediaId: 1, ... lastSeenOn: '2026-11-29' }, { mediaId: 2, ... }],
 *   //      mediaStarted30d: [1, 2], mediaStopped30d: [1] }
 *
 * A posting starts on the Japan day of its `jobCreatedAt`, or the day the service first saw
 * it when it has none; it closes on the day a rebuild finds it gone from `jobs`. A window of
 * N days is the N Japan days ending on `asOf`. The windows move with the calendar: the nightly
 * job counts again every company whose windows hold anything (`activityDueQuery`).
 */
import { japanDay } from '../src/text/japan-day.js';

type Doc = Record<string, unknown>;

/** One posting of a company's history, as the `posting-history` document holds it. */
export interface HistoryEntry {
  postingId: string;
  mediaId: number | null;
  /** YYYY-MM-DD, Japan */
  startedOn: string;
  firstSeenOn: string;
  closedOn: string | null;
}

/** What the history needs of an open posting (a `jobs` document). */
export interface OpenPosting {
  id: string;
  mediaId?: unknown;
  jobCreatedAt?: unknown;
}

export interface MediumActivity {
  mediaId: number;
  openPostings: number;
  firstSeenOn: string;
  /** the day its last posting there closed; null while one is open there */
  lastSeenOn: string | null;
}

/** The record's `hiringActivity`, in the record's key order. */
export interface HiringActivity {
  asOf: string;
  openPostings: number;
  newPostings7d: number;
  newPostings30d: number;
  newPostings90d: number;
  closedPostings30d: number;
  netChange30d: number;
  firstPostedOn: string | null;
  lastPostedOn: string | null;
  media: MediumActivity[];
  mediaStarted30d: number[];
  mediaStopped30d: number[];
}

const dayMs = 24 * 60 * 60 * 1000;

/** The Japan day (YYYY-MM-DD) of an instant (src/text/japan-day.ts). */
export { japanDay };

/** `day` moved by `days` (negative: back). */
export function addDays(day: string, days: number): string {
  return new Date(Date.parse(`${day}T00:00:00Z`) + days * dayMs).toISOString().slice(0, 10);
}

/** The Japan day of a source date-time or date, or null when it is none. */
function dayOf(value: unknown): string | null {
  if (typeof value !== 'string' || value === '') return null;
  if (/^\d{4}-\d{2}-\d{2}$/.test(value)) return value;
  const at = Date.parse(value);
  return Number.isFinite(at) ? japanDay(new Date(at)) : null;
}

function mediaIdOf(value: unknown): number | null {
  return typeof value === 'number' && Number.isInteger(value) ? value : null;
}

function sameEntry(a: HistoryEntry, b: HistoryEntry): boolean {
  return (
    a.mediaId === b.mediaId &&
    a.startedOn === b.startedOn &&
    a.firstSeenOn === b.firstSeenOn &&
    a.closedOn === b.closedOn
  );
}

/**
 * The history after `today`'s rebuild, and the entries that changed (to write): an open posting
 * the history lacks starts, one it holds closed opens again, an open entry whose posting is no
 * longer in `jobs` closes today.
 */
export function reconcileHistory(
  previous: readonly HistoryEntry[],
  open: readonly OpenPosting[],
  today: string,
): { entries: HistoryEntry[]; changed: HistoryEntry[] } {
  const byId = new Map(previous.map((entry) => [entry.postingId, entry]));
  const entries: HistoryEntry[] = [];
  const changed: HistoryEntry[] = [];
  const openIds = new Set<string>();
  for (const posting of open) {
    openIds.add(posting.id);
    const before = byId.get(posting.id);
    const firstSeenOn = before?.firstSeenOn ?? today;
    const next: HistoryEntry = {
      postingId: posting.id,
      mediaId: mediaIdOf(posting.mediaId),
      startedOn: dayOf(posting.jobCreatedAt) ?? firstSeenOn,
      firstSeenOn,
      closedOn: null,
    };
    entries.push(next);
    if (!before || !sameEntry(before, next)) changed.push(next);
  }
  for (const entry of previous) {
    if (openIds.has(entry.postingId)) continue;
    if (entry.closedOn !== null) {
      entries.push(entry);
      continue;
    }
    const closed = { ...entry, closedOn: today };
    entries.push(closed);
    changed.push(closed);
  }
  return { entries, changed };
}

/** Within the `days` Japan days ending on `asOf`. */
function within(day: string | null, asOf: string, days: number): boolean {
  return day !== null && day <= asOf && day > addDays(asOf, -days);
}

/** The activity of a company with this history, as of the Japan day `asOf`. */
export function countActivity(entries: readonly HistoryEntry[], asOf: string): HiringActivity {
  const count = (test: (entry: HistoryEntry) => boolean) => entries.filter(test).length;
  const newPostings30d = count((entry) => within(entry.startedOn, asOf, 30));
  const closedPostings30d = count((entry) => within(entry.closedOn, asOf, 30));
  const starts = entries.map((entry) => entry.startedOn).sort();
  const media = mediaActivity(entries);
  return {
    asOf,
    openPostings: count((entry) => entry.closedOn === null),
    newPostings7d: count((entry) => within(entry.startedOn, asOf, 7)),
    newPostings30d,
    newPostings90d: count((entry) => within(entry.startedOn, asOf, 90)),
    closedPostings30d,
    netChange30d: newPostings30d - closedPostings30d,
    firstPostedOn: starts[0] ?? null,
    lastPostedOn: starts[starts.length - 1] ?? null,
    media,
    mediaStarted30d: media.filter((medium) => within(medium.firstSeenOn, asOf, 30)).map((m) => m.mediaId),
    mediaStopped30d: media.filter((medium) => within(medium.lastSeenOn, asOf, 30)).map((m) => m.mediaId),
  };
}

/** Per medium (by id), postings without a medium left out. */
function mediaActivity(entries: readonly HistoryEntry[]): MediumActivity[] {
  const byMedium = new Map<number, HistoryEntry[]>();
  for (const entry of entries) {
    if (entry.mediaId === null) continue;
    const list = byMedium.get(entry.mediaId) ?? [];
    list.push(entry);
    byMedium.set(entry.mediaId, list);
  }
  return [...byMedium.entries()]
    .sort(([a], [b]) => a - b)
    .map(([mediaId, list]) => {
      const openPostings = list.filter((entry) => entry.closedOn === null).length;
      const closes = list.map((entry) => entry.closedOn ?? '').sort();
      return {
        mediaId,
        openPostings,
        firstSeenOn: list.map((entry) => entry.startedOn).sort()[0] as string,
        lastSeenOn: openPostings > 0 ? null : (closes[closes.length - 1] as string),
      };
    });
}

/** A company without postings, as of `asOf` (a new company, before its first rebuild). */
export function noActivity(asOf: string): HiringActivity {
  return countActivity([], asOf);
}

/** The fields a company document carries for its activity: the searchable object and the record's text. */
export function activityFields(activity: HiringActivity): Doc {
  return {
    hiringActivity: activity,
    hiringActivityRecord: Buffer.from(JSON.stringify(activity), 'utf8').toString('base64'),
  };
}

/** A `posting-history` document <-> its entry. */
export function historyId(corporateNumber: string, postingId: string): string {
  return `${corporateNumber}:${postingId}`;
}

export function toHistoryDocument(corporateNumber: string, entry: HistoryEntry): Doc {
  return { id: historyId(corporateNumber, entry.postingId), corporateNumber, ...entry };
}

export function fromHistoryDocument(doc: Doc): HistoryEntry {
  return {
    postingId: String(doc.postingId),
    mediaId: mediaIdOf(doc.mediaId),
    startedOn: String(doc.startedOn),
    firstSeenOn: String(doc.firstSeenOn),
    closedOn: typeof doc.closedOn === 'string' ? doc.closedOn : null,
  };
}

/**
 * The companies whose counts the calendar moves on `today`: counted before today with anything
 * in a window (a start within 90 days or a close within 30: every windowed value is 0 otherwise,
 * and stays 0 until a posting changes, which rebuilds the company), and companies with postings
 * never counted (written before the activity existed).
 */
export function activityDueQuery(today: string): Doc {
  return {
    bool: {
      should: [
        {
          bool: {
            filter: [{ range: { 'hiringActivity.asOf': { lt: today } } }],
            should: [
              { range: { 'hiringActivity.newPostings90d': { gt: 0 } } },
              { range: { 'hiringActivity.closedPostings30d': { gt: 0 } } },
            ],
            minimum_should_match: 1,
          },
        },
        {
          bool: {
            filter: [{ range: { 'aggregates.postingCount': { gt: 0 } } }],
            must_not: [{ exists: { field: 'hiringActivity.asOf' } }],
          },
        },
      ],
      minimum_should_match: 1,
    },
  };
}
