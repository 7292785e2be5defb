import { Router } from 'express';
import type { Services } from '../../services.js';

/** `GET /health`: 200 when OpenSearch and (if configured) Redis answer, else 503. */
export function healthRouter(services: Services): Router {
  const router = Router();
  router.get('/health', async (_req, res) => {
    const [opensearch, redis] = await Promise.all([opensearchStatus(services), redisStatus(services)]);
    const ok = opensearch.status !== 'down' && redis.status !== 'down';
    res.status(ok ? 200 : 503).json({ status: ok ? 'ok' : 'degraded', opensearch, redis });
  });
  return router;
}

async function opensearchStatus(services: Services): Promise<{ status: string; cluster?: string }> {
  try {
    const { body } = await services.opensearch.cluster.health({ timeout: '2s' }, { requestTimeout: 3000 });
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
