/**
 * `GET /health`: 200 `{"status":"ok"}` when OpenSearch and (if configured) Redis answer, else
 * 503 `{"status":"degraded"}`. That is all a caller without the operator token learns: the
 * cluster's name and health, the Redis mode and which part is down are for operators, who send
 * `Authorization: Bearer <OPERATOR_TOKEN>` (unset: nobody gets the details).
 *
 *   curl -H "Authorization: Bearer $OPERATOR_TOKEN" http://127.0.0.1:8080/health
 *   -> {"status":"ok","opensearch":{"status":"green","cluster":"corpsearch"},"redis":{"status":"up","mode":"shared"}}
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { type Request, Router } from 'express';
import type { Services } from '../../services.js';

export function healthRouter(services: Services): Router {
  const router = Router();
  const operatorDigest = services.config.operatorToken ? digest(services.config.operatorToken) : undefined;
  router.get('/health', async (req, res) => {
    const [opensearch, redis] = await Promise.all([opensearchStatus(services), redisStatus(services)]);
    const ok = opensearch.status !== 'down' && redis.status !== 'down';
    const status = ok ? 'ok' : 'degraded';
    res.setHeader('Cache-Control', 'no-store');
    res
      .status(ok ? 200 : 503)
      .json(isOperator(req, operatorDigest) ? { status, opensearch, redis } : { status });
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

async function redisStatus(services: Services): Promise<{ status: string; mode: string }> {
  if (!services.redis) return { status: 'in-memory', mode: 'single-process' };
  try {
    await services.redis.ping();
    return { status: 'up', mode: 'shared' };
  } catch {
    return { status: 'down', mode: 'shared' };
  }
}
