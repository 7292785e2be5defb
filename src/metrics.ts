/**
 * Prometheus metrics (prom-client), served by a listener of their own: `GET /metrics` on
 * METRICS_HOST:METRICS_PORT (127.0.0.1:9464 for the API, 9465 for the worker; 0 turns it
 * off), never on the public port, so a caller of the API cannot read traffic, balances moved
 * or queue depth. Every process (each API process, each worker) serves its own figures;
 * Prometheus sums them.
 *
 * METRICS_PORT unset and the default port taken (a second API process or worker on the host):
 * the process serves its metrics on a free port instead and logs it, rather than failing to
 * start; a port set in METRICS_PORT that is taken stops the start (the scrape config names it).
 *
 * Ingest rate is `rate(corpsearch_indexer_records_total{outcome="indexed"}[1m])`.
 */
import http, { type Server } from 'node:http';
import type { Logger } from 'pino';
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';

export const registry = new Registry();
collectDefaultMetrics({ register: registry, prefix: 'corpsearch_' });

const latencyBuckets = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export const metrics = {
  httpRequests: new Counter({
    name: 'corpsearch_http_requests_total',
    help: 'HTTP requests answered, by route template and status',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [registry],
  }),
  httpDuration: new Histogram({
    name: 'corpsearch_http_request_duration_seconds',
    help: 'Time from request to response, by route template and status',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: latencyBuckets,
    registers: [registry],
  }),
  engineDuration: new Histogram({
    name: 'corpsearch_opensearch_duration_seconds',
    help: 'Round trip of the OpenSearch request behind a search or a detail, by operation and outcome',
    labelNames: ['operation', 'outcome'] as const,
    buckets: latencyBuckets,
    registers: [registry],
  }),
  postingOverflowSearches: new Counter({
    name: 'corpsearch_posting_overflow_searches_total',
    help: 'Company searches with posting conditions while a company is past the nested limit: one_trip (the nested answer was exact) or jobs_first (a second engine request)',
    labelNames: ['outcome'] as const,
    registers: [registry],
  }),
  searchesBeside: new Counter({
    name: 'corpsearch_searches_beside_admission_total',
    help: 'Searches whose engine call started beside their admission: admitted (answered), or dropped (the admission refused or replayed: the engine answer went nowhere)',
    labelNames: ['outcome'] as const,
    registers: [registry],
  }),
  rejected: new Counter({
    name: 'corpsearch_requests_rejected_total',
    help: 'Requests refused before the search: rate_limited (429), insufficient_credits (402), unavailable (503)',
    labelNames: ['reason'] as const,
    registers: [registry],
  }),
  creditsCharged: new Counter({
    name: 'corpsearch_credits_charged_total',
    help: 'Credits committed by successful charged requests',
    registers: [registry],
  }),
  creditsRefunded: new Counter({
    name: 'corpsearch_credits_refunded_total',
    help: 'Credits given back after a charged request failed',
    registers: [registry],
  }),
  redisPrimaryChanges: new Counter({
    name: 'corpsearch_redis_primary_changes_total',
    help: 'Times a Redis connection of this process came back to another server than before (a Sentinel failover)',
    registers: [registry],
  }),
  ledgerFiled: new Counter({
    name: 'corpsearch_ledger_entries_filed_total',
    help: 'Credit ledger entries filed from the tail into the engine by this process',
    registers: [registry],
  }),
  indexerRecords: new Counter({
    name: 'corpsearch_indexer_records_total',
    help: 'Source records handled by the indexer, by outcome (indexed, rejected)',
    labelNames: ['outcome'] as const,
    registers: [registry],
  }),
  indexerDeadLettered: new Counter({
    name: 'corpsearch_indexer_dead_lettered_total',
    help: 'Records written to the dead-letter list (rejected, or given up on after retries)',
    registers: [registry],
  }),
  indexerJobsFailed: new Counter({
    name: 'corpsearch_indexer_jobs_failed_total',
    help: 'Queue job attempts that failed (each is retried until its attempts run out)',
    labelNames: ['name'] as const,
    registers: [registry],
  }),
};

/** A gauge read when scraped, e.g. the queue's job counts. */
export function queueDepthGauge(read: () => Promise<Record<string, number>>): Gauge<'state'> {
  return new Gauge({
    name: 'corpsearch_indexer_queue_jobs',
    help: 'Indexer queue jobs by state (waiting, active, delayed, failed)',
    labelNames: ['state'] as const,
    registers: [registry],
    async collect() {
      try {
        for (const [state, count] of Object.entries(await read())) this.set({ state }, count);
      } catch {
        // Redis away: leave the last figures; the scrape itself must not fail
      }
    },
  });
}

/** The credit ledger's tail, read when scraped: entries written and not yet filed. */
export function ledgerTailGauge(read: () => Promise<number>): Gauge {
  return new Gauge({
    name: 'corpsearch_ledger_tail_entries',
    help: 'Credit ledger entries waiting to be filed in the engine (grows while the engine or the filing is away)',
    registers: [registry],
    async collect() {
      try {
        this.set(await read());
      } catch {
        // Redis away: leave the last figure; the scrape itself must not fail
      }
    },
  });
}

export interface MetricsServer {
  url: string;
  close(): Promise<void>;
}

/**
 * The metrics listener of a process (the rule in this file's header): `configured` is
 * METRICS_PORT (undefined: unset), `defaultPort` the process kind's (9464 API, 9465 worker).
 *
 *   await startMetricsListener('127.0.0.1', undefined, 9464, logger)  // 9464, else a free port
 *   await startMetricsListener('127.0.0.1', 9500, 9464, logger)       // 9500, else an error
 *   await startMetricsListener('127.0.0.1', 0, 9464, logger)          // undefined: off
 */
export async function startMetricsListener(
  host: string,
  configured: number | undefined,
  defaultPort: number,
  logger: Logger,
): Promise<MetricsServer | undefined> {
  if (configured === 0) return undefined;
  try {
    return await startMetricsServer(host, configured ?? defaultPort, logger);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw error;
    if (configured !== undefined)
      throw new Error(
        `metrics port ${configured} on ${host} is already in use: set METRICS_PORT to a free port, or 0 to turn metrics off`,
      );
    logger.warn(
      `metrics port ${defaultPort} on ${host} is taken (another process on this host?): serving metrics on a free port; set METRICS_PORT per process for a fixed one`,
    );
    return startMetricsServer(host, 0, logger);
  }
}

/** `GET /metrics` on host:port (0: a free one); resolves once listening, with the bound port's URL. */
export function startMetricsServer(host: string, port: number, logger: Logger): Promise<MetricsServer> {
  const server: Server = http.createServer((req, res) => {
    if (req.method !== 'GET' || (req.url ?? '').split('?')[0] !== '/metrics') {
      res.writeHead(404).end();
      return;
    }
    registry.metrics().then(
      (body) => res.writeHead(200, { 'Content-Type': registry.contentType }).end(body),
      () => res.writeHead(500).end(),
    );
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      const address = server.address();
      const bound = typeof address === 'object' && address ? address.port : port;
      const url = `http://${host}:${bound}/metrics`;
      logger.info(`metrics on ${url}`);
      resolve({
        url,
        close: () => new Promise((done) => server.close(() => done())),
      });
    });
  });
}
