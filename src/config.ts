/**
 * The one configuration module: every environment variable the service, the indexer and the
 * CLIs read is declared, typed, validated and defaulted here (zod), once at start, and the
 * result is passed down. Every setting has a local default, so `npm start` works with nothing
 * set: a local OpenSearch node, in-memory Redis equivalents.
 *
 * A bad value is refused as one line naming the variable, e.g.
 *   LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent, got "verbose"
 * (`ConfigError`; the entry points print its message and exit 1, no stack trace).
 */
import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { projectRoot } from './project-root.js';

/** Rate-limit and credit settings (docs/decisions/0006-rate-limit-window.md, 0007-credit-ledger.md). */
export interface LimitsConfig {
  /** Requests per second per user on the searches and the detail endpoint (default 5). */
  ratePerSecond: number;
  /**
   * GET /corporates/suggest per second per user (SUGGEST_RATE_LIMIT_PER_SECOND, default 20): a
   * budget of its own, so typing neither runs out nor uses up the searches' one.
   */
  suggestRatePerSecond: number;
  /**
   * Length of the rate window in seconds (default 1, "per second"). Tests widen it so a burst
   * counted "exactly N pass" stays inside one window however slow the machine; not in the env.
   */
  rateWindowSeconds: number;
  /** User ids the rate limiter lets through unmetered (benchmarks); credits still apply. */
  rateLimitExemptUsers: ReadonlySet<string>;
  /** Credits per company or job search. */
  searchCost: number;
  /** Credits per job detail lookup (0: free, then the ledger is not touched). */
  detailCost: number;
  /**
   * Credits per certain match of POST /corporates/match (MATCH_CREDIT_COST, default 1, or the
   * search price when that is 0; an unmatched record costs nothing). At most `searchCost`: a
   * record never costs more than a search.
   */
  matchCost: number;
  /**
   * How long a reservation record is kept, so a replayed debit (seconds after a reconnect) or
   * a retried refund (up to ~30 s) still finds it; one record per search, so not for days.
   */
  reservationTtlSeconds: number;
  /** How long a completed Idempotency-Key response is replayed. */
  idempotencyTtlSeconds: number;
  /** How long an in-flight Idempotency-Key blocks its twins if the process dies mid-request. */
  idempotencyPendingTtlSeconds: number;
  /** Retry-After on a 503 when Redis is away. */
  unavailableRetryAfterSeconds: number;
  /**
   * CREDIT_RESERVATION_TIMEOUT_SECONDS: a reservation neither committed nor refunded after
   * this long belongs to a dead process and is refunded by the sweep. Longer than the request
   * deadline plus the commit's retries (about 30 s), so a live search is never refunded.
   */
  reservationOrphanSeconds: number;
  /** CREDIT_SWEEP_INTERVAL_SECONDS: how often each API process looks for orphaned reservations. */
  sweepIntervalSeconds: number;
  /** Export price: one credit per this many records sent, rounded up (EXPORT_RECORDS_PER_CREDIT). */
  exportRecordsPerCredit: number;
  /** Exports one user may run at the same time (EXPORT_MAX_CONCURRENT). */
  exportMaxConcurrent: number;
}

/**
 * How the API and the indexer prove themselves to a secured OpenSearch (the security plugin,
 * or a managed service): basic-auth credentials and the CA its TLS certificate must chain to.
 * The credentials come from OPENSEARCH_USERNAME with OPENSEARCH_PASSWORD or
 * OPENSEARCH_PASSWORD_FILE (a Docker secret), or from the user and password of
 * OPENSEARCH_URL, which are moved here: the URL the rest of the code sees holds none.
 */
export interface OpenSearchAccess {
  auth: { username: string; password: string } | undefined;
  /**
   * OPENSEARCH_CA_FILE: a PEM file of the CA(s) the engine's certificate must chain to. Unset:
   * the system's public CAs. Verification is never switched off (no "insecure" setting).
   */
  caFile: string | undefined;
}

export interface Config {
  port: number;
  host: string;
  /**
   * Unset: start or reuse the local node (src/local/opensearch-node.ts). One URL or several
   * separated by commas, never with credentials in it (those are in `opensearchAccess`).
   */
  opensearchUrl: string | undefined;
  opensearchAccess: OpenSearchAccess;
  /** Unset: single-process mode with in-memory keys, limits and credits. */
  redisUrl: string | undefined;
  /** Prepended to every index and alias name, so test files and deployments never collide. */
  indexPrefix: string;
  /** Prepended to every Redis key. */
  redisPrefix: string;
  /** Load the sample data set when the indices are empty (`npm start`). */
  loadSampleData: boolean;
  logLevel: LogLevel;
  limits: LimitsConfig;
  /** Single-process mode: the API key file shared by `npm start` and the keys CLI. */
  keysFile: string;
  /** Single-process mode: the credit balances shared by `npm start` and the keys CLI. */
  creditsFile: string;
  /** REQUEST_DEADLINE_MS: the most a /rest/v1 request may take; then 503 with Retry-After. */
  requestDeadlineMs: number;
  /** REDIS_BUDGET_MS: all of one request's Redis work together (never more than the deadline). */
  redisBudgetMs: number;
  /**
   * API_KEY_CACHE_SECONDS: with Redis, a key verified this recently is answered from the API
   * process's memory while revocations reach it by pub/sub (src/auth/key-changes.ts); 0 reads
   * Redis on every request.
   */
  apiKeyCacheSeconds: number;
  /** Slow or stuck clients: how long the HTTP server waits for them (src/http/server.ts). */
  http: {
    /** HTTP_HEADERS_TIMEOUT_MS: the request line and all headers must arrive within this. */
    headersTimeoutMs: number;
    /** HTTP_REQUEST_TIMEOUT_MS: the whole request, body included. */
    requestTimeoutMs: number;
    /** HTTP_KEEP_ALIVE_TIMEOUT_MS: an idle keep-alive connection is closed after this. */
    keepAliveTimeoutMs: number;
  };
  /** OPERATOR_TOKEN: `Authorization: Bearer <token>` on /health shows the details; unset: never. */
  operatorToken: string | undefined;
  /** JVM heap of a local OpenSearch node this process starts (`-Xms`/`-Xmx`). */
  opensearchHeap: string;
  /** The JDK of the local OpenSearch node; unset: the newest under /usr/lib/jvm. */
  javaHome: string | undefined;
  /** New indices' shape (see indexSettingsFrom). */
  index: IndexShape;
  /** Prometheus `GET /metrics` listener (src/metrics.ts); port 0 = off. Never the public port. */
  metricsHost: string;
  /**
   * Unset: 9464 for the API, 9465 for a worker, or a free port (logged) when that one is taken
   * by another process on the host; set: exactly that port, a start failure when taken.
   */
  metricsPort: number | undefined;
  /**
   * OPENSEARCH_MAX_CLAUSE_COUNT: the engine's indices.query.bool.max_clause_count (OpenSearch
   * 3.x: 1,024; Lucene's IndexSearcher.maxClauseCount). A search whose compiled query counts
   * more clauses is a 400 before the engine is asked (src/search/clause-count.ts); set it to
   * the engine's value when an operator changes that.
   */
  maxClauseCount: number;
  /**
   * Keys of the cursor tokens' encryption (AES-256-GCM, src/search/paging/cursor.ts), first
   * one encrypting, every one decrypting: CURSOR_KEYS = `<id>:<secret>,<id>:<secret>`, ids 0-255,
   * secrets of at least 32 characters; CURSOR_SECRET=<secret> is the one-key form (id 0).
   * Unset: a random key per process, so cursors die with the process and are refused by
   * another one; set the same keys on every API process for cursors to survive restarts and
   * move between processes. Rotation: docs/operations.md, "Rotating the cursor keys".
   */
  cursorKeys?: Array<{ id: number; secret: string }>;
  /**
   * The indices' index.max_result_window (10,000, the engine's default, which mappings/ keep);
   * only tests set it, beside a lowered index setting, to reach deep pages with little data.
   */
  resultWindow?: number;
  /**
   * How long an API process reuses its answer to "which companies are past the nested posting
   * limit" (src/search/posting-overflow.ts), in ms; 1,000 when unset. Only tests set it.
   */
  postingMarksCacheMs?: number;
}

/**
 * Shards, replicas and refresh interval of the indices bootstrap creates (existing indices
 * keep theirs). Production defaults: 1 shard (1M postings is a few GB: one shard per index
 * keeps scoring and paging exact and cheap), one replica as soon as a second node exists
 * (`auto_expand_replicas: 0-1`, so a lone dev or test node stays green), refresh every 1 s
 * (a posting is searchable a second after it is indexed).
 *   INDEX_SHARDS (1), INDEX_REPLICAS (unset = 0-1 by node count; a number = exactly that),
 *   INDEX_REFRESH_INTERVAL (1s; -1 turns refresh off, e.g. for a bulk reload)
 */
export interface IndexShape {
  shards: number;
  replicas: number | undefined;
  refreshInterval: string;
  /**
   * The corporates index's `index.mapping.nested_objects.limit` (nested postings per company;
   * mappings/corporates.json keeps 50,000). Only tests set it, lowered, to reach companies past
   * the limit with a few dozen postings; not in the environment.
   */
  nestedPostingLimit?: number;
}

export function indexSettingsFrom(shape: IndexShape): Record<string, unknown> {
  return {
    number_of_shards: shape.shards,
    ...(shape.replicas === undefined
      ? { auto_expand_replicas: '0-1' }
      : { number_of_replicas: shape.replicas, auto_expand_replicas: false }),
    refresh_interval: shape.refreshInterval,
  };
}

/** OpenSearch 3.x's default indices.query.bool.max_clause_count. */
export const defaultMaxClauseCount = 1024;

export const logLevels = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof logLevels)[number];

/** A start-up setting that cannot be used; its message is the one line to print. */
export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

// An empty variable counts as unset, the way a compose file's `FOO=` is meant.
const optionalText = z
  .string()
  .optional()
  .transform((value) => (value === '' ? undefined : value));

function wholeNumber(fallback: number, min = 0) {
  return optionalText.transform((value, ctx) => {
    if (value === undefined) return fallback;
    const parsed = Number(value);
    if (!Number.isInteger(parsed) || parsed < min) {
      ctx.addIssue({
        code: 'custom',
        message: `must be a whole number of at least ${min}, got "${value}"`,
      });
      return z.NEVER;
    }
    return parsed;
  });
}

function oneOf<T extends string>(choices: readonly T[], fallback: T) {
  return optionalText.transform((value, ctx) => {
    if (value === undefined) return fallback;
    if (!(choices as readonly string[]).includes(value)) {
      ctx.addIssue({ code: 'custom', message: `must be one of ${choices.join(', ')}, got "${value}"` });
      return z.NEVER;
    }
    return value as T;
  });
}

function url(protocols: readonly string[]) {
  return optionalText.transform((value, ctx) => {
    if (value === undefined) return undefined;
    let parsed: URL | undefined;
    try {
      parsed = new URL(value);
    } catch {
      parsed = undefined;
    }
    if (!parsed || !protocols.includes(parsed.protocol)) {
      // the value may hold a password: name the variable and the rule only
      ctx.addIssue({ code: 'custom', message: `must be a URL starting ${protocols.join(' or ')}//` });
      return z.NEVER;
    }
    return value;
  });
}

/** One URL, or several separated by commas (the nodes of one OpenSearch cluster). */
function urlList(protocols: readonly string[]) {
  return optionalText.transform((value, ctx) => {
    if (value === undefined) return undefined;
    const parts = value.split(',').map((part) => part.trim());
    const valid = parts.every((part) => {
      try {
        return protocols.includes(new URL(part).protocol);
      } catch {
        return false;
      }
    });
    if (!valid) {
      // the value may hold a password: name the variable and the rule only
      ctx.addIssue({
        code: 'custom',
        message: `must be a URL starting ${protocols.join(' or ')}//, or several separated by commas`,
      });
      return z.NEVER;
    }
    return parts.join(',');
  });
}

const flag = (fallback: boolean) =>
  optionalText.transform((value, ctx) => {
    if (value === undefined) return fallback;
    if (value === 'true' || value === '1') return true;
    if (value === 'false' || value === '0') return false;
    ctx.addIssue({ code: 'custom', message: `must be true or false, got "${value}"` });
    return z.NEVER;
  });

const localFile = (name: string) =>
  optionalText.transform((value) => value ?? path.join(projectRoot, '.local', name));

/** Every environment variable read anywhere in the project, by name. */
const environment = z.object({
  PORT: wholeNumber(8080),
  HOST: optionalText.transform((value) => value ?? '127.0.0.1'),
  OPENSEARCH_URL: urlList(['http:', 'https:']),
  OPENSEARCH_USERNAME: optionalText,
  OPENSEARCH_PASSWORD: optionalText,
  OPENSEARCH_PASSWORD_FILE: optionalText,
  OPENSEARCH_CA_FILE: optionalText,
  REDIS_URL: url(['redis:', 'rediss:']),
  // `??` semantics: an empty prefix is a real choice
  INDEX_PREFIX: z.string().default(''),
  REDIS_PREFIX: z.string().default('cs:'),
  LOAD_SAMPLE_DATA: flag(true),
  LOG_LEVEL: oneOf(logLevels, 'info'),
  RATE_LIMIT_PER_SECOND: wholeNumber(5, 1),
  RATE_LIMIT_EXEMPT_USERS: z.string().default(''),
  SUGGEST_RATE_LIMIT_PER_SECOND: wholeNumber(20, 1),
  SEARCH_CREDIT_COST: wholeNumber(1),
  DETAIL_CREDIT_COST: wholeNumber(0),
  // unset: 1, or SEARCH_CREDIT_COST when searches cost less (free searches, free matches)
  MATCH_CREDIT_COST: optionalText.transform((value, ctx) => {
    if (value === undefined) return undefined;
    const parsed = Number(value);
    if (!Number.isInteger(parsed) || parsed < 0) {
      ctx.addIssue({ code: 'custom', message: `must be a whole number of at least 0, got "${value}"` });
      return z.NEVER;
    }
    return parsed;
  }),
  IDEMPOTENCY_TTL_SECONDS: wholeNumber(24 * 3600, 1),
  CREDIT_RESERVATION_TIMEOUT_SECONDS: wholeNumber(60, 1),
  CREDIT_SWEEP_INTERVAL_SECONDS: wholeNumber(10, 1),
  REQUEST_DEADLINE_MS: wholeNumber(3000, 1),
  REDIS_BUDGET_MS: wholeNumber(1000, 1),
  API_KEY_CACHE_SECONDS: wholeNumber(30),
  HTTP_HEADERS_TIMEOUT_MS: wholeNumber(10_000, 1),
  HTTP_REQUEST_TIMEOUT_MS: wholeNumber(15_000, 1),
  HTTP_KEEP_ALIVE_TIMEOUT_MS: wholeNumber(5_000, 1),
  OPERATOR_TOKEN: optionalText,
  EXPORT_RECORDS_PER_CREDIT: wholeNumber(1000, 1),
  EXPORT_MAX_CONCURRENT: wholeNumber(2, 1),
  OPENSEARCH_MAX_CLAUSE_COUNT: wholeNumber(defaultMaxClauseCount, 1),
  API_KEYS_FILE: localFile('api-keys.json'),
  CREDITS_FILE: localFile('credits.json'),
  OPENSEARCH_HEAP: optionalText.transform((value, ctx) => {
    if (value === undefined) return '1g';
    if (!/^\d+[kmg]$/i.test(value)) {
      ctx.addIssue({ code: 'custom', message: `must be a JVM size such as 512m or 2g, got "${value}"` });
      return z.NEVER;
    }
    return value;
  }),
  JAVA_HOME: optionalText,
  INDEX_SHARDS: wholeNumber(1, 1),
  INDEX_REPLICAS: optionalText.transform((value, ctx) => {
    if (value === undefined) return undefined;
    const parsed = Number(value);
    if (!Number.isInteger(parsed) || parsed < 0) {
      ctx.addIssue({ code: 'custom', message: `must be a whole number of at least 0, got "${value}"` });
      return z.NEVER;
    }
    return parsed;
  }),
  INDEX_REFRESH_INTERVAL: optionalText.transform((value, ctx) => {
    if (value === undefined) return '1s';
    if (!/^(-1|\d+(ms|s|m))$/.test(value)) {
      ctx.addIssue({ code: 'custom', message: `must be like 1s, 500ms, 30s or -1, got "${value}"` });
      return z.NEVER;
    }
    return value;
  }),
  METRICS_HOST: optionalText.transform((value) => value ?? '127.0.0.1'),
  METRICS_PORT: optionalText.transform((value, ctx) => {
    if (value === undefined) return undefined;
    const parsed = Number(value);
    if (!Number.isInteger(parsed) || parsed < 0 || parsed > 65535) {
      ctx.addIssue({
        code: 'custom',
        message: `must be a port number (0 turns metrics off), got "${value}"`,
      });
      return z.NEVER;
    }
    return parsed;
  }),
  CURSOR_SECRET: optionalText.transform((value, ctx) => {
    if (value === undefined) return undefined;
    if (value.length < 32) {
      // never echo a secret back
      ctx.addIssue({ code: 'custom', message: 'must be at least 32 characters' });
      return z.NEVER;
    }
    return value;
  }),
  CURSOR_KEYS: optionalText.transform((value, ctx) => {
    if (value === undefined) return undefined;
    const keys: Array<{ id: number; secret: string }> = [];
    for (const [index, entry] of value.split(',').entries()) {
      const colon = entry.indexOf(':');
      const id = Number(entry.slice(0, Math.max(colon, 0)).trim());
      const secret = entry.slice(colon + 1).trim();
      // never echo a secret back: name the entry by its place and its id
      if (colon < 1 || !Number.isInteger(id) || id < 0 || id > 255) {
        ctx.addIssue({
          code: 'custom',
          message: `entry ${index + 1} must be <id>:<secret> with an id from 0 to 255`,
        });
        return z.NEVER;
      }
      if (secret.length < 32) {
        ctx.addIssue({ code: 'custom', message: `key ${id}: the secret must be at least 32 characters` });
        return z.NEVER;
      }
      if (keys.some((key) => key.id === id)) {
        ctx.addIssue({ code: 'custom', message: `key id ${id} is given twice` });
        return z.NEVER;
      }
      keys.push({ id, secret });
    }
    return keys;
  }),
});

/** Reads and checks the environment; throws a `ConfigError` naming every bad variable. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = environment.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join('.')} ${issue.message}`);
    throw new ConfigError(problems.join('; '));
  }
  const e = parsed.data;
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
  const matchCost = e.MATCH_CREDIT_COST ?? Math.min(1, e.SEARCH_CREDIT_COST);
  if (matchCost > e.SEARCH_CREDIT_COST)
    throw new ConfigError(
      `MATCH_CREDIT_COST must be at most SEARCH_CREDIT_COST (a matched record never costs more than a search), got ${e.MATCH_CREDIT_COST} and ${e.SEARCH_CREDIT_COST}`,
    );
  return {
    port: e.PORT,
    host: e.HOST,
    opensearchUrl: engine.url,
    opensearchAccess: engine.access,
    redisUrl: e.REDIS_URL,
    indexPrefix: e.INDEX_PREFIX,
    redisPrefix: e.REDIS_PREFIX,
    loadSampleData: e.LOAD_SAMPLE_DATA,
    logLevel: e.LOG_LEVEL,
    limits: {
      ratePerSecond: e.RATE_LIMIT_PER_SECOND,
      suggestRatePerSecond: e.SUGGEST_RATE_LIMIT_PER_SECOND,
      rateWindowSeconds: 1,
      rateLimitExemptUsers: new Set(
        e.RATE_LIMIT_EXEMPT_USERS.split(',')
          .map((id) => id.trim())
          .filter((id) => id !== ''),
      ),
      searchCost: e.SEARCH_CREDIT_COST,
      detailCost: e.DETAIL_CREDIT_COST,
      matchCost,
      reservationTtlSeconds: 3600,
      idempotencyTtlSeconds: e.IDEMPOTENCY_TTL_SECONDS,
      idempotencyPendingTtlSeconds: 30,
      unavailableRetryAfterSeconds: 1,
      reservationOrphanSeconds: e.CREDIT_RESERVATION_TIMEOUT_SECONDS,
      sweepIntervalSeconds: e.CREDIT_SWEEP_INTERVAL_SECONDS,
      exportRecordsPerCredit: e.EXPORT_RECORDS_PER_CREDIT,
      exportMaxConcurrent: e.EXPORT_MAX_CONCURRENT,
    },
    requestDeadlineMs: e.REQUEST_DEADLINE_MS,
    redisBudgetMs: e.REDIS_BUDGET_MS,
    apiKeyCacheSeconds: e.API_KEY_CACHE_SECONDS,
    http: {
      headersTimeoutMs: e.HTTP_HEADERS_TIMEOUT_MS,
      requestTimeoutMs: e.HTTP_REQUEST_TIMEOUT_MS,
      keepAliveTimeoutMs: e.HTTP_KEEP_ALIVE_TIMEOUT_MS,
    },
    operatorToken: e.OPERATOR_TOKEN,
    keysFile: e.API_KEYS_FILE,
    creditsFile: e.CREDITS_FILE,
    opensearchHeap: e.OPENSEARCH_HEAP,
    javaHome: e.JAVA_HOME,
    index: { shards: e.INDEX_SHARDS, replicas: e.INDEX_REPLICAS, refreshInterval: e.INDEX_REFRESH_INTERVAL },
    metricsHost: e.METRICS_HOST,
    metricsPort: e.METRICS_PORT,
    maxClauseCount: e.OPENSEARCH_MAX_CLAUSE_COUNT,
    ...(cursorKeys ? { cursorKeys } : {}),
  };
}

/** A file's text, or a ConfigError naming the variable and the reason (never the content). */
function readSetting(variable: string, file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'unreadable';
    throw new ConfigError(`${variable} cannot be read: ${code} (${file})`);
  }
}

/**
 * The engine's URL(s) without credentials, and the access settings. Refused, each with one
 * line naming the variables: credentials given two ways (URL and variables, or password and
 * password file), half a pair, nodes with different users, credentials or a CA file for a
 * URL that is not https (a password would cross the network in clear text), and any of them
 * without OPENSEARCH_URL (the local node takes none).
 */
function openSearchAccess(e: {
  OPENSEARCH_URL: string | undefined;
  OPENSEARCH_USERNAME: string | undefined;
  OPENSEARCH_PASSWORD: string | undefined;
  OPENSEARCH_PASSWORD_FILE: string | undefined;
  OPENSEARCH_CA_FILE: string | undefined;
}): { url: string | undefined; access: OpenSearchAccess } {
  const nodes = e.OPENSEARCH_URL?.split(',').map((part) => new URL(part)) ?? [];
  const withCredentials = nodes.filter((node) => node.username !== '' || node.password !== '');
  const decode = (text: string): string => {
    try {
      return decodeURIComponent(text);
    } catch {
      throw new ConfigError("OPENSEARCH_URL's user or password is not valid percent-encoding");
    }
  };
  const fromUrl = new Set(withCredentials.map((node) => `${decode(node.username)}:${decode(node.password)}`));
  let auth: OpenSearchAccess['auth'];
  if (withCredentials.length > 0) {
    if (e.OPENSEARCH_USERNAME || e.OPENSEARCH_PASSWORD || e.OPENSEARCH_PASSWORD_FILE)
      throw new ConfigError(
        'OPENSEARCH_URL holds a user and password and OPENSEARCH_USERNAME / OPENSEARCH_PASSWORD(_FILE) are set too: give the credentials one way',
      );
    if (withCredentials.length !== nodes.length || fromUrl.size !== 1)
      throw new ConfigError('OPENSEARCH_URL must give the same user and password on every node, or none');
    const first = withCredentials[0] as URL;
    if (first.username === '' || first.password === '')
      throw new ConfigError('OPENSEARCH_URL must hold both a user and a password, or neither');
    auth = { username: decode(first.username), password: decode(first.password) };
    for (const node of nodes) {
      node.username = '';
      node.password = '';
    }
  } else if (e.OPENSEARCH_USERNAME || e.OPENSEARCH_PASSWORD || e.OPENSEARCH_PASSWORD_FILE) {
    if (e.OPENSEARCH_PASSWORD && e.OPENSEARCH_PASSWORD_FILE)
      throw new ConfigError('OPENSEARCH_PASSWORD and OPENSEARCH_PASSWORD_FILE are both set: give one');
    if (!e.OPENSEARCH_USERNAME) throw new ConfigError('OPENSEARCH_PASSWORD(_FILE) needs OPENSEARCH_USERNAME');
    const password = e.OPENSEARCH_PASSWORD_FILE
      ? // a secret file usually ends with a newline that is not part of the password
        readSetting('OPENSEARCH_PASSWORD_FILE', e.OPENSEARCH_PASSWORD_FILE).replace(/\r?\n$/, '')
      : e.OPENSEARCH_PASSWORD;
    if (!password)
      throw new ConfigError(
        e.OPENSEARCH_PASSWORD_FILE
          ? 'OPENSEARCH_PASSWORD_FILE is empty'
          : 'OPENSEARCH_USERNAME needs OPENSEARCH_PASSWORD or OPENSEARCH_PASSWORD_FILE',
      );
    auth = { username: e.OPENSEARCH_USERNAME, password };
  }
  if ((auth || e.OPENSEARCH_CA_FILE) && nodes.length === 0)
    throw new ConfigError(
      'OpenSearch credentials or OPENSEARCH_CA_FILE need OPENSEARCH_URL (the local node takes neither)',
    );
  if (auth && nodes.some((node) => node.protocol !== 'https:'))
    throw new ConfigError(
      'OpenSearch credentials need https:// nodes in OPENSEARCH_URL: over http:// the password would cross the network in clear text',
    );
  if (e.OPENSEARCH_CA_FILE) {
    if (!nodes.some((node) => node.protocol === 'https:'))
      throw new ConfigError('OPENSEARCH_CA_FILE is set but no node in OPENSEARCH_URL is https://');
    const pem = readSetting('OPENSEARCH_CA_FILE', e.OPENSEARCH_CA_FILE);
    try {
      new X509Certificate(pem);
    } catch {
      throw new ConfigError(`OPENSEARCH_CA_FILE must be a PEM certificate (${e.OPENSEARCH_CA_FILE})`);
    }
  }
  return {
    url:
      withCredentials.length > 0
        ? nodes.map((node) => node.href.replace(/\/$/, '')).join(',')
        : e.OPENSEARCH_URL,
    access: { auth, caFile: e.OPENSEARCH_CA_FILE },
  };
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
 * The effective configuration as one JSON text, secrets masked: the user and password of a
 * URL become `***` (`redis://***:***@cache:6379`), so it can be pasted into a ticket.
 */
export function describeConfig(config: Config): string {
  const masked = (value: string | undefined): string | undefined => {
    if (value === undefined) return undefined;
    try {
      const parsed = new URL(value);
      if (!parsed.username && !parsed.password) return value;
      if (parsed.username) parsed.username = '***';
      if (parsed.password) parsed.password = '***';
      return parsed.toString();
    } catch {
      return '***';
    }
  };
  const shown = {
    ...config,
    opensearchUrl: config.opensearchUrl?.split(',').map(masked).join(','),
    opensearchAccess: {
      // the user name helps find which account a deployment uses; the password never shows
      auth: config.opensearchAccess.auth && {
        username: config.opensearchAccess.auth.username,
        password: '***',
      },
      caFile: config.opensearchAccess.caFile,
    },
    // the ids show which keys a process holds (for a rotation), never the secrets
    cursorKeys: config.cursorKeys?.map(({ id }) => ({ id, secret: '***' })),
    redisUrl: masked(config.redisUrl),
    operatorToken: config.operatorToken === undefined ? undefined : '***',
    limits: { ...config.limits, rateLimitExemptUsers: [...config.limits.rateLimitExemptUsers] },
  };
  // unset settings show as null rather than vanish
  return JSON.stringify(shown, (_key, value) => (value === undefined ? null : value), 2);
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
