/**
 * The searchable month of detail text, computed rather than left to the engine: the indexer
 * keeps texts in it and rolls them off (indexer/transform.ts, indexer/rolloff.ts), and the
 * sample-data generator (sample-data/jobs.ts) dates a third of its texts inside it. The query
 * side names the same window as `now-1M/d` (`detailTextWindow`, src/search/compile-kinds.ts).
 */

/**
 * Start of the searchable window, the instant the engine's `now-1M/d` (time_zone Asia/Tokyo)
 * names: the same day one month back in Japan, clamped to that month's length, at 00:00 Japan
 * time. 2026-11-22T10:00Z -> 2026-10-21T15:00Z (10-22 00:00 in Japan); 2026-03-31 -> 02-28.
 */
export function searchableSince(now: Date): Date {
  const japan = 9 * 3_600_000;
  const wall = new Date(now.getTime() + japan);
  const [year, month] = [wall.getUTCFullYear(), wall.getUTCMonth()];
  const date = Math.min(wall.getUTCDate(), new Date(Date.UTC(year, month, 0)).getUTCDate());
  return new Date(Date.UTC(year, month - 1, date) - japan);
}
