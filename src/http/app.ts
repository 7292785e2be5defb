/**
 * The Express app. The middleware order is this one list, top to bottom; under /rest/v1 it is
 * operation gate -> deadline -> the operation's chain from the route table
 * (src/http/route-table.ts): auth -> rate limit -> validation -> plan -> credits -> handler.
 * Before all of it, a master list for a key the memory holds is answered by the masters' fast
 * path (src/http/masters-fast-path.ts), which the HTTP server also calls before the app.
 */
import express, { type Express } from 'express';
import { keyStoreFor } from '../auth/key-admin.js';
import type { KeyStore } from '../auth/key-store.js';
import { loadMasters } from '../masters/masters.js';
import type { Services } from '../services.js';
import { authenticate, keyChecker } from './authenticate.js';
import { requestDeadline } from './deadline.js';
import { errorMiddleware, notFound } from './error-middleware.js';
import { fastPathMiddleware, mastersFastPath } from './masters-fast-path.js';
import { apiBase, operationGate } from './operation-gate.js';
import { requestId } from './request-id.js';
import { requestLog } from './request-log.js';
import { requestMetrics } from './request-metrics.js';
import { mountRoutes } from './route-table.js';
import { consoleRouter } from './routes/console.js';
import { docsRouter } from './routes/docs.js';
import { healthMonitor, healthRouter } from './routes/health.js';
import { securityHeaders } from './security-headers.js';

export interface AppOptions {
  /** Default: Redis when services.redis, else the single-process key file (`config.keysFile`). */
  keyStore?: KeyStore;
}

export function createApp(services: Services, options: AppOptions = {}): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  // the key checker, its memory shared by authentication and the masters' fast path
  const checker = keyChecker(
    options.keyStore ?? keyStoreFor(services.redis, services.config.redisPrefix, services.config.keysFile),
    // the memory is trusted only for the Redis store, whose revocations are announced
    services.keyChanges && !options.keyStore
      ? { changes: services.keyChanges, freshMs: services.config.apiKeyCacheSeconds * 1000 }
      : undefined,
  );
  const log = requestLog(services.logger);
  const security = securityHeaders();
  const metrics = requestMetrics();
  // 0. a master list for a key the memory holds: answered before Express by the same function
  //    the HTTP server calls first (src/http/masters-fast-path.ts, src/http/server.ts)
  const masters = loadMasters();
  const fastPath = mastersFastPath({
    masters,
    checker,
    log,
    metrics,
    securityHeaders: security,
  });
  app.locals.fastPath = fastPath;
  app.use(fastPathMiddleware(fastPath));
  // 1. request id and structured request log (API key redacted); security headers
  app.use(requestId());
  app.use(log);
  app.use(security);
  app.use(metrics);
  // 2. /rest/v1: first the two steps every request there takes, then the route table
  //    (src/http/route-table.ts), which says what each operation runs after them
  const api = express.Router();
  //    a. the operation the path names, spelled exactly, or a 404 (every limit and price
  //       belongs to an operation: no other spelling of a path reaches a handler)
  api.use(operationGate());
  //    b. the request's deadline: Redis and OpenSearch get the time left; 503 when it is up
  api.use(
    requestDeadline({
      totalMs: services.config.requestDeadlineMs,
      matchMs: services.config.matchDeadlineMs,
      redisMs: services.config.redisBudgetMs,
      logger: services.logger,
    }),
  );
  //    c. each operation's chain: auth (X-API-Key) -> rate limit -> validation -> plan ->
  //       credits -> handler, the steps each one takes being the table's
  mountRoutes(api, services, authenticate(checker), masters);
  app.use(apiBase, api);
  // 3. /health, /livez, /readyz, /docs, /openapi.yaml, /console: no key (the console asks for
  //    one; metrics: src/metrics.ts, on their own port); after /rest/v1, whose requests are
  //    nearly all the traffic and need not walk these routers first
  //    (/health and /readyz read the state of one monitor per app, refreshed in the background
  //    while a server made by createHttpServer serves the app: src/http/server.ts)
  const monitor = healthMonitor(services);
  app.locals.healthMonitor = monitor;
  app.use(healthRouter(services, monitor));
  app.use(docsRouter());
  app.use(consoleRouter({ matchCreditCost: services.limits.config.matchCost }));
  // 4. unknown route -> 404, then the one error middleware
  app.use(notFound());
  app.use(errorMiddleware(services.logger));
  return app;
}
