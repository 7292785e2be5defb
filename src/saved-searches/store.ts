/**
 * Saved searches: a user's company or job search bodies kept under a name, in Redis beside
 * the user's keys and credits (one hash per user, saved search id -> its JSON), so a user can
 * list them and open one again (docs/api.md, "Saved searches").
 *
 *   const saved = await store.create('u-1', { name: '大阪のエンジニア採用', search: 'corporates',
 *                                             body: { prefectureIdOr: [27] } }, 100)
 *   // -> { id: 'ss_…', name, search, body, createdAt }; null when u-1 already keeps 100
 *   await store.list('u-1')   // newest first
 *
 * The per-user cap holds under concurrent creates: the count and the write are one script.
 */
import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';

export type SavedSearchKind = 'corporates' | 'jobs';

export interface SavedSearch {
  id: string;
  name: string;
  search: SavedSearchKind;
  /** the search request body as the user sent it (validated as a search of that kind) */
  body: Record<string, unknown>;
  /** record fields whose changes are reported for the records in its results */
  watchFields: string[];
  /** its changes are kept (a search of at most SAVED_SEARCH_WATCH_MAX_RESULTS results when saved) */
  watching: boolean;
  /** why not, when it is not */
  notWatchingReason: string | null;
  createdAt: string;
}

/** HSET only while the hash holds fewer than ARGV[3] fields; 1 when written, 0 at the cap. */
const createScript = `
if redis.call('HLEN', KEYS[1]) >= tonumber(ARGV[3]) then return 0 end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
return 1
`;

/** Ids: `ss_` and 20 hex characters (80 random bits). */
export const savedSearchIdPattern = /^ss_[0-9a-f]{20}$/;

export class SavedSearchStore {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {}

  private key(userId: string): string {
    return `${this.prefix}saved-searches:${userId}`;
  }

  /** The new saved search, or null when the user keeps `cap` already. */
  async create(
    userId: string,
    entry: Pick<SavedSearch, 'name' | 'search' | 'body' | 'watchFields'>,
    cap: number,
    now = new Date(),
  ): Promise<SavedSearch | null> {
    const saved: SavedSearch = {
      id: `ss_${randomBytes(10).toString('hex')}`,
      name: entry.name,
      search: entry.search,
      body: entry.body,
      watchFields: entry.watchFields,
      watching: false,
      notWatchingReason: null,
      createdAt: now.toISOString(),
    };
    const written = await this.redis.eval(
      createScript,
      1,
      this.key(userId),
      saved.id,
      JSON.stringify(saved),
      cap,
    );
    return written === 1 ? saved : null;
  }

  /** Every saved search of the user, newest first (ties by id). */
  async list(userId: string): Promise<SavedSearch[]> {
    const values = await this.redis.hvals(this.key(userId));
    return values
      .map((value) => JSON.parse(value) as SavedSearch)
      .sort((a, b) => b.createdAt.localeCompare(a.createdAt) || a.id.localeCompare(b.id));
  }

  /** The user's saved search of that id; undefined for an unknown id or another user's. */
  async get(userId: string, id: string): Promise<SavedSearch | undefined> {
    if (!savedSearchIdPattern.test(id)) return undefined;
    const value = await this.redis.hget(this.key(userId), id);
    return value === null ? undefined : (JSON.parse(value) as SavedSearch);
  }

  /** Writes the saved search again as given (its watching state), if the user still has it. */
  async update(userId: string, saved: SavedSearch): Promise<void> {
    await this.redis.hset(this.key(userId), saved.id, JSON.stringify(saved));
  }

  /** Removes it; false when the user has none of that id. */
  async delete(userId: string, id: string): Promise<boolean> {
    if (!savedSearchIdPattern.test(id)) return false;
    return (await this.redis.hdel(this.key(userId), id)) === 1;
  }
}
