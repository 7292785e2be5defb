/**
 * `GET /health`: 200 `{"status":"ok"}` when OpenSearch and (if configured) Redis answer, else
 * 503 `{"status":"degraded"}`. That is all a caller without the operator token learns: the
 * engine's name and the health of the API's indices, the Redis mode and which part is down are
 * for operators, who send `Authorization: Bearer <OPERATOR_TOKEN>` (unset: nobody gets the
 * details).
 *
 *   curl -H "Authorization: Bearer $OPERATOR_TOKEN" http://127.0.0.1:8080/health
 *   -> {"status":"ok","opensearch":{"status":"green","cluster":"corpsearch"},"redis":{"status":"up","mode":"shared"}}
 *
 * `GET /livez`: 200 while the process serves HTTP at all (restart it when this fails); it
 * asks nothing of anyone.
 * `GET /readyz`: 200 `{"status":"ready"}` only when this process can answer a search:
 * OpenSearch answers, every index alias exists, the request validators are compiled, Redis
 * answers (when configured) and the process is not draining; else 503
 * `{"status":"not-ready"}` with `Retry-After: 1` (send it no traffic, do not restart it).
 * Both probes are public; the names of the failing checks go to the operator token only:
 *
 *   curl -H "Authorization: Bearer $OPERATOR_TOKEN" http://127.0.0.1:8080/readyz
 *   -> 503 {"status":"not-ready","failing":["redis"]}
 *
 * /health and /readyz answer from the state a HealthMonitor (src/http/readiness.ts) refreshes
 * about once a second, one check at a time, never from a call of their own: a flood of probes
 * costs the engine and Redis nothing. A state older than 5 s (a check that hangs) counts as
 * OpenSearch, indices and Redis failing, their statuses `unknown`.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { type Request, Router } from 'express';
import { indexName } from '../../opensearch/indices.js';
import { indexDefinitions } from '../../opensearch/mappings.js';
import type { Services } from '../../services.js';
import { type DependencyHealth, HealthMonitor, type HealthReading, processState } from '../readiness.js';

/** The probes' monitor of `services` (started and stopped by src/http/server.ts). */
export function healthMonitor(services: Services): HealthMonitor {
  const aliases = indexDefinitions().map((def) => indexName(services.config.indexPrefix, def.name));
  return new HealthMonitor(async () => {
    const [engine, redis] = await Promise.all([engineStatus(services, aliases), redisStatus(services)]);
    return { ...engine, redis };
  });
}

export function healthRouter(services: Services, monitor: HealthMonitor): Router {
  const router = Router();
  const operatorDigest = services.config.operatorToken ? digest(services.config.operatorToken) : undefined;
  const singleProcess = !services.redis;
  router.get('/health', async (req, res) => {
    const { opensearch, redis } = trusted(await monitor.read(), singleProcess);
    const ok = answers(opensearch) && answers(redis);
    const status = ok ? 'ok' : 'degraded';
    res.setHeader('Cache-Control', 'no-store');
    res
      .status(ok ? 200 : 503)
      .json(isOperator(req, operatorDigest) ? { status, opensearch, redis } : { status });
  });
  router.get('/livez', (_req, res) => {
    res.setHeader('Cache-Control', 'no-store');
    res.status(200).json({ status: 'ok' });
  });
  router.get('/readyz', async (req, res) => {
    const state = trusted(await monitor.read(), singleProcess);
    const checks = {
      opensearch: answers(state.opensearch),
      indices: state.indices,
      validators: processState.validatorsCompiled,
      redis: answers(state.redis),
      accepting: !processState.draining,
    };
    const failing = Object.entries(checks)
      .filter(([, ok]) => !ok)
      .map(([name]) => name);
    const status = failing.length === 0 ? 'ready' : 'not-ready';
    res.setHeader('Cache-Control', 'no-store');
    if (failing.length > 0) res.set('Retry-After', '1');
    res
      .status(failing.length === 0 ? 200 : 503)
      .json(isOperator(req, operatorDigest) ? { status, failing } : { status });
  });
  return router;
}

function answers(dependency: { status: string }): boolean {
  return dependency.status !== 'down' && dependency.status !== 'unknown';
}

/** A stale state proves nothing about the dependencies: unknown, so failing. */
function trusted(reading: HealthReading, singleProcess: boolean): DependencyHealth {
  if (!reading.stale) return reading;
  return {
    opensearch: { status: 'unknown' },
    indices: false,
    redis: singleProcess
      ? { status: 'in-memory', mode: 'single-process' }
      : { status: 'unknown', mode: 'shared' },
  };
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}

/** Constant-time comparison of the bearer token (digests, so lengths never differ). */
function isOperator(req: Request, operatorDigest: Buffer | undefined): boolean {
  if (!operatorDigest) return false;
  const match = /^Bearer (\S+)$/.exec(req.get('authorization') ?? '');
  return match?.[1] !== undefined && timingSafeEqual(digest(match[1]), operatorDigest);
}

/**
 * One engine request per check: the health of the API's own indices, through their aliases,
 * with no wait. Every alias there -> 200 and their colour; one missing -> 408 `timed_out` at
 * once (the engine answers, the indices do not exist); no answer, or refused -> down.
 *
 *   GET /_cluster/health/<prefix>corporates,<prefix>job-details,...?timeout=0s
 */
async function engineStatus(
  services: Services,
  aliases: string[],
): Promise<Pick<DependencyHealth, 'opensearch' | 'indices'>> {
  try {
    const { body } = await services.opensearch.cluster.health(
      { index: aliases, timeout: '0s', filter_path: ['cluster_name', 'status', 'timed_out'] },
      { timeoutMs: 2000, maxRetries: 0, ignore: [408] },
    );
    const cluster = body.cluster_name;
    if (body.timed_out) return { opensearch: { status: 'indices-missing', cluster }, indices: false };
    return { opensearch: { status: body.status === 'red' ? 'down' : body.status, cluster }, indices: true };
  } catch {
    return { opensearch: { status: 'down' }, indices: false };
  }
}

async function redisStatus(services: Services): Promise<{ status: string; mode: string }> {
  if (!services.redis) return { status: 'in-memory', mode: 'single-process' };
  try {
    await services.redis.ping();
    return { status: 'up', mode: 'shared' };
  } catch {
    return { status: 'down', mode: 'shared' };
  }
}
