/**
 * `GET /health`: 200 `{"status":"ok"}` when OpenSearch and (if configured) Redis answer, else
 * 503 `{"status":"degraded"}`. That is all a caller without the operator token learns: the
 * cluster's name and health, the Redis mode and which part is down are for operators, who send
 * `Authorization: Bearer <OPERATOR_TOKEN>` (unset: nobody gets the details).
 *
 *   curl -H "Authorization: Bearer $OPERATOR_TOKEN" http://127.0.0.1:8080/health
 *   -> {"status":"ok","opensearch":{"status":"green","cluster":"corpsearch"},"redis":{"status":"up","mode":"shared"}}
 *
 * `GET /livez`: 200 while the process serves HTTP at all (restart it when this fails).
 * `GET /readyz`: 200 `{"status":"ready"}` only when this process can answer a search:
 * OpenSearch answers, every index alias exists, the request validators are compiled, Redis
 * answers (when configured) and the process is not draining; else 503
 * `{"status":"not-ready"}` with `Retry-After: 1` (send it no traffic, do not restart it).
 * Both probes are public; the names of the failing checks go to the operator token only:
 *
 *   curl -H "Authorization: Bearer $OPERATOR_TOKEN" http://127.0.0.1:8080/readyz
 *   -> 503 {"status":"not-ready","failing":["redis"]}
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { type Request, Router } from 'express';
import { indexName } from '../../opensearch/indices.js';
import { indexDefinitions } from '../../opensearch/mappings.js';
import type { Services } from '../../services.js';
import { processState } from '../readiness.js';

export function healthRouter(services: Services): Router {
  const router = Router();
  const operatorDigest = services.config.operatorToken ? digest(services.config.operatorToken) : undefined;
  const aliases = indexDefinitions().map((def) => indexName(services.config.indexPrefix, def.name));
  router.get('/health', async (req, res) => {
    const [opensearch, redis] = await Promise.all([opensearchStatus(services), redisStatus(services)]);
    const ok = opensearch.status !== 'down' && redis.status !== 'down';
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
    const [opensearch, indices, redis] = await Promise.all([
      opensearchStatus(services).then((s) => s.status !== 'down'),
      indicesExist(services, aliases),
      redisStatus(services).then((s) => s.status !== 'down'),
    ]);
    const checks = {
      opensearch,
      indices,
      validators: processState.validatorsCompiled,
      redis,
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

function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}

/** Constant-time comparison of the bearer token (digests, so lengths never differ). */
function isOperator(req: Request, operatorDigest: Buffer | undefined): boolean {
  if (!operatorDigest) return false;
  const match = /^Bearer (\S+)$/.exec(req.get('authorization') ?? '');
  return match?.[1] !== undefined && timingSafeEqual(digest(match[1]), operatorDigest);
}

async function opensearchStatus(services: Services): Promise<{ status: string; cluster?: string }> {
  try {
    const { body } = await services.opensearch.cluster.health(
      { timeout: '2s' },
      { requestTimeout: 3000, maxRetries: 0 },
    );
    return { status: body.status === 'red' ? 'down' : body.status, cluster: body.cluster_name };
  } catch {
    return { status: 'down' };
  }
}

async function indicesExist(services: Services, aliases: string[]): Promise<boolean> {
  try {
    const { body } = await services.opensearch.indices.existsAlias(
      { name: aliases },
      { requestTimeout: 3000, maxRetries: 0 },
    );
    return body === true;
  } catch {
    return false;
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
