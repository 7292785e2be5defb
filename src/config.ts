/**
 * The one configuration module: every environment variable the service, the indexer and the
 * CLIs read is declared once, in the table of src/config/settings.ts (name, kind, default,
 * secret or not, documentation), read and checked here once at start, and the result is
 * passed down. The `Config` type is derived from that table. Every setting has a local
 * default, so `npm start` works with nothing set: a local OpenSearch node, in-memory Redis
 * equivalents. Reference: docs/settings.md (generated from the table).
 *
 * A bad value is refused as one line naming the variable, e.g.
 *   LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent, got "verbose"
 * (`ConfigError`; the entry points print its message and exit 1, no stack trace).
 */
import { type OpenSearchAccess, openSearchAccess } from './config/engine-access.js';
import { ConfigError } from './config/kinds.js';
import {
  type Expand,
  getIn,
  mergeParts,
  type PlacedBy,
  placeSettings,
  readSettings,
  setIn,
  type ValuesOf,
} from './config/schema.js';
import { type AnyDeclaredSetting, settings } from './config/settings.js';

export { defaultMaxClauseCount, type LogLevel, localEngineMaxPort, logLevels } from './config/settings.js';
export { ConfigError, type OpenSearchAccess };

/** Every setting's value by variable name, as read from the environment. */
export type SettingValues = ValuesOf<AnyDeclaredSetting>;

/**
 * Values no variable sets: fixed by the design of the limits (docs/decisions/rate-limit.md and
 * docs/decisions/credits-and-admission.md).
 */
const fixedValues = {
  limits: {
    /**
     * Length of the rate window in seconds ("per second"). Tests widen it so a burst counted
     * "exactly N pass" stays inside one window however slow the machine.
     */
    rateWindowSeconds: 1,
    /**
     * How long a reservation record is kept, so a replayed debit (seconds after a reconnect)
     * or a retried refund (up to ~30 s) still finds it; one record per search, so not for days.
     */
    reservationTtlSeconds: 3600,
    /** How long an in-flight Idempotency-Key blocks its twins if the process dies mid-request. */
    idempotencyPendingTtlSeconds: 30,
    /** Retry-After on a 503 when Redis is away. */
    unavailableRetryAfterSeconds: 1,
  },
};

/** Values only tests set, to reach limits with little data; never from the environment. */
interface TestOnlyValues {
  /**
   * The indices' index.max_result_window (10,000, the engine's default, which mappings/ keep),
   * lowered beside an index setting to reach deep pages with little data.
   */
  resultWindow?: number;
  /**
   * How long an API process reuses its answer to "which companies are past the nested posting
   * limit" (src/search/posting-overflow.ts), in ms; 1,000 when unset.
   */
  postingMarksCacheMs?: number;
  index: {
    /**
     * The corporates index's `index.mapping.nested_objects.limit` (mappings/corporates.json
     * keeps 50,000), lowered to reach companies past the limit with a few dozen postings.
     */
    nestedPostingLimit?: number;
  };
}

/**
 * The settings read together, each rule refusing with one line naming the variables: the
 * engine's credentials (src/config/engine-access.ts), the two forms of the cursor keys, the
 * orphan timeout against the deadline, and the match price against the search price.
 */
function derivedValues(e: SettingValues) {
  const engine = openSearchAccess(e);
  if (e.CURSOR_KEYS && e.CURSOR_SECRET)
    throw new ConfigError(
      'CURSOR_KEYS and CURSOR_SECRET are both set: give the keys one way (CURSOR_SECRET=<secret> is CURSOR_KEYS=0:<secret>)',
    );
  const cursorKeys = e.CURSOR_KEYS ?? (e.CURSOR_SECRET ? [{ id: 0, secret: e.CURSOR_SECRET }] : undefined);
  // a live search must never look orphaned: its reservation would be refunded mid-search
  if (e.CREDIT_RESERVATION_TIMEOUT_SECONDS * 1000 <= e.REQUEST_DEADLINE_MS)
    throw new ConfigError(
      `CREDIT_RESERVATION_TIMEOUT_SECONDS must be longer than REQUEST_DEADLINE_MS, got ${e.CREDIT_RESERVATION_TIMEOUT_SECONDS} s and ${e.REQUEST_DEADLINE_MS} ms`,
    );
  // a match request's own deadline: unset, 20 s, kept under the reservation timeout an operator
  // may have shortened (a live match must not look orphaned either)
  const orphanMs = e.CREDIT_RESERVATION_TIMEOUT_SECONDS * 1000;
  const matchDeadlineMs =
    e.MATCH_DEADLINE_MS ?? Math.max(e.REQUEST_DEADLINE_MS, Math.min(20_000, orphanMs - 1000));
  if (orphanMs <= matchDeadlineMs)
    throw new ConfigError(
      `CREDIT_RESERVATION_TIMEOUT_SECONDS must be longer than MATCH_DEADLINE_MS, got ${e.CREDIT_RESERVATION_TIMEOUT_SECONDS} s and ${matchDeadlineMs} ms`,
    );
  // unset: 1, or SEARCH_CREDIT_COST when searches cost less (free searches, free matches)
  const matchCost = e.MATCH_CREDIT_COST ?? Math.min(1, e.SEARCH_CREDIT_COST);
  if (matchCost > e.SEARCH_CREDIT_COST)
    throw new ConfigError(
      `MATCH_CREDIT_COST must be at most SEARCH_CREDIT_COST (a matched record never costs more than a search), got ${e.MATCH_CREDIT_COST} and ${e.SEARCH_CREDIT_COST}`,
    );
  return {
    opensearchUrl: engine.url,
    opensearchAccess: engine.access,
    cursorKeys,
    matchDeadlineMs,
    limits: { matchCost },
  };
}

/**
 * The configuration: the settings placed by their keys (src/config/settings.ts), the fixed
 * values, what the rules derive, and the values only tests set.
 */
export type Config = Expand<
  PlacedBy<AnyDeclaredSetting> & typeof fixedValues & ReturnType<typeof derivedValues> & TestOnlyValues
>;
/** Rate-limit and credit settings (docs/decisions/rate-limit.md and docs/decisions/credits-and-admission.md). */
export type LimitsConfig = Config['limits'];
/**
 * Shards, replicas and refresh interval of the indices bootstrap creates (existing indices
 * keep theirs); see indexSettingsFrom.
 */
export type IndexShape = Config['index'];

/**
 * Shards, replicas and refresh as index settings. Production defaults: 1 shard (1M postings is
 * a few GB: one shard per index keeps scoring and paging exact and cheap), one replica as soon
 * as a second node exists (`auto_expand_replicas: 0-1`, so a lone dev or test node stays
 * green), refresh every 1 s (a posting is searchable a second after it is indexed).
 */
export function indexSettingsFrom(shape: IndexShape): Record<string, unknown> {
  return {
    number_of_shards: shape.shards,
    ...(shape.replicas === undefined
      ? { auto_expand_replicas: '0-1' }
      : { number_of_replicas: shape.replicas, auto_expand_replicas: false }),
    refresh_interval: shape.refreshInterval,
  };
}

/** Reads and checks the environment; throws a `ConfigError` naming every bad variable. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const values = readSettings(settings, env);
  const derived = derivedValues(values);
  return mergeParts(placeSettings(settings, values), fixedValues, derived) as Config;
}

/** The rate-limit and credit part alone (its tests). */
export function loadLimitsConfig(env: NodeJS.ProcessEnv = process.env): LimitsConfig {
  return loadConfig(env).limits;
}

/** The configuration with nothing set: what tests and library callers start from. */
export function defaultConfig(): Config {
  return loadConfig({});
}

/**
 * How `--print-config` shows what the rules derive from secret settings; the settings with a
 * key are masked by their kind or, when secret, as `***` (src/config/settings.ts).
 */
const derivedMasks: Record<string, (value: unknown) => unknown> = {
  // the user name helps find which account a deployment uses; the password never shows
  'opensearchAccess.auth': (auth) =>
    auth && { username: (auth as { username: string }).username, password: '***' },
};

/** Where each value that may hold a secret sits in the configuration, and how it shows. */
function masksByKey(): Array<[string, (value: unknown) => unknown]> {
  const fromSettings = settings.flatMap((setting): Array<[string, (value: unknown) => unknown]> => {
    if (setting.key === undefined) return [];
    const { kind } = setting;
    if (kind.mask) return [[setting.key, (value) => kind.mask?.(value as never)]];
    return setting.secret ? [[setting.key, () => '***']] : [];
  });
  return [...fromSettings, ...Object.entries(derivedMasks)];
}

/**
 * The effective configuration as one JSON text, secrets masked: the user and password of a
 * URL become `***` (`redis://***:***@cache:6379`), so it can be pasted into a ticket.
 */
export function describeConfig(config: Config): string {
  const shown = structuredClone(config) as unknown as Record<string, unknown>;
  for (const [key, mask] of masksByKey()) {
    const value = getIn(config, key);
    if (value !== undefined) setIn(shown, key, mask(value));
  }
  // unset settings show as null rather than vanish; a set of ids as a list
  return JSON.stringify(
    shown,
    (_key, value) => (value === undefined ? null : value instanceof Set ? [...value] : value),
    2,
  );
}

/**
 * For entry points: the configuration, or the one-line reason and exit code 1. A stack trace
 * would bury the variable's name.
 */
export function loadConfigOrExit(env: NodeJS.ProcessEnv = process.env): Config {
  try {
    return loadConfig(env);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`configuration: ${error.message}\n`);
    process.exit(1);
  }
}
