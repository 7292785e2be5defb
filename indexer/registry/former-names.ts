/**
 * A company's former names, from the registry rows of one batch and what the index holds:
 * the earlier name and the date it stopped. Kept in the corporates document (`formerNames`,
 * internal) with their name keys (`formerNameKeys`), which match and suggest look up after the
 * current names (src/names/match.ts, src/names/suggest.ts).
 *
 *   stored {name: '株式会社旧名商店'}, rows [history '株式会社旧名商店', applied '株式会社新名' (changeDate 2026-11-01)]
 *   -> [{name: '株式会社旧名商店', until: '2026-11-01'}]
 *
 * Rules (docs/decisions/registry-fields.md):
 * - A name replaced by a later row of the company (in file order) stopped on that row's
 *   `changeDate`; a history row (latest=0) with no later row in the batch stopped by its own
 *   `updateDate` (the day the registry published its successor).
 * - The stored name replaced by the batch's first applied row is a former name too when the
 *   registry wrote it, unless that row is a correction (correct=1): a corrected name was an
 *   error, never the company's.
 * - The current name is never a former name (a company renamed back); a name kept twice keeps
 *   its later date. Newest first.
 */
import { nameKey } from '../../src/names/keys.js';

export interface FormerName {
  name: string;
  /** YYYY-MM-DD: the last day (or the day after) the name was the company's, as the registry dates it */
  until: string;
}

/** One row of the company in the batch, in file order. */
export interface NameRow {
  name: string;
  changeDate: string;
  updateDate: string;
  /** correct=1: the name before this row was an error */
  correction: boolean;
  /** latest=0 */
  history: boolean;
}

export function formerNamesOf(
  rows: readonly NameRow[],
  stored: { name?: unknown; formerNames?: unknown; registry?: unknown } | undefined,
  current: string,
): FormerName[] {
  const found: FormerName[] = Array.isArray(stored?.formerNames)
    ? (stored.formerNames as FormerName[]).filter(
        (item) => typeof item?.name === 'string' && typeof item.until === 'string',
      )
    : [];
  const firstApplied = rows.find((row) => !row.history);
  // the stored name, replaced by this batch: only a name the registry wrote (the postings
  // pipeline's spelling of a company is no name it had), and not behind a history row (the
  // stored name may then already be the newest, from an earlier load)
  if (
    typeof stored?.name === 'string' &&
    typeof stored.registry === 'object' &&
    stored.registry !== null &&
    rows[0] === firstApplied &&
    firstApplied &&
    !firstApplied.correction &&
    stored.name !== firstApplied.name
  )
    found.push({ name: stored.name, until: firstApplied.changeDate });
  rows.forEach((row, at) => {
    const next = rows[at + 1];
    if (!next) {
      if (row.history) found.push({ name: row.name, until: row.updateDate });
      return;
    }
    if (next.name !== row.name && !next.correction) found.push({ name: row.name, until: next.changeDate });
  });
  const latest = new Map<string, string>();
  for (const { name, until } of found) {
    if (name === current) continue;
    const before = latest.get(name);
    if (before === undefined || until > before) latest.set(name, until);
  }
  return [...latest]
    .map(([name, until]) => ({ name, until }))
    .sort((a, b) => b.until.localeCompare(a.until) || a.name.localeCompare(b.name));
}

/**
 * The name keys of the former names that the current name's key does not already give (a
 * legal form moved before or after the name keeps the key): what match and suggest look up.
 */
export function formerNameKeysOf(formerNames: readonly FormerName[], current: string): string[] | null {
  const own = nameKey(current);
  const keys = [...new Set(formerNames.map((former) => nameKey(former.name)))].filter(
    (key) => key !== '' && key !== own,
  );
  return keys.length > 0 ? keys.sort() : null;
}
