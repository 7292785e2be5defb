/**
 * The webhook worker alone, in a process of its own, for bench/webhook-latency.ts
 * `--webhooks-apart`: as `npm run worker` starts it (src/webhooks/worker.ts), on REDIS_URL
 * under BENCH_PREFIX, loopback receivers allowed. Answers GET /health on PORT (loopback) once
 * started; stops on SIGTERM.
 */
import http from 'node:http';
import { Redis } from 'ioredis';
import pino from 'pino';
import { createQueueConnection } from '../indexer/queue.js';
import { defaultConfig } from '../src/config.js';
import { startWebhookWorker } from '../src/webhooks/worker.js';

const redisUrl = process.env.REDIS_URL ?? '';
const prefix = process.env.BENCH_PREFIX ?? '';
if (!redisUrl || !prefix) throw new Error('REDIS_URL and BENCH_PREFIX name the Redis and the prefix');
const redis = new Redis(redisUrl);
const connection = createQueueConnection(redisUrl);
const hooks = startWebhookWorker({
  connection,
  redis,
  redisPrefix: prefix,
  config: { ...defaultConfig().webhooks, allowLoopback: true },
  logger: pino({ level: 'silent' }),
});
const server = http.createServer((_req, res) => res.end('ok'));
server.listen(Number(process.env.PORT ?? 0), '127.0.0.1');
process.once('SIGTERM', async () => {
  server.close();
  await hooks.close();
  redis.disconnect();
  connection.disconnect();
  process.exit(0);
});
