/**
 * The Express app. The middleware order is this one list, top to bottom; under /rest/v1 it is
 * operation gate -> deadline -> auth -> (masters: free, unlimited) -> rate limit -> validation ->
 * credits -> search.
 */
import express, { type Express } from 'express';
import { keyStoreFor } from '../auth/key-admin.js';
import type { KeyStore } from '../auth/key-store.js';
import { creditsMiddleware, refundOnErrorMiddleware } from '../limits/credits-middleware.js';
import { countDeferredRateOnError, rateLimitMiddleware } from '../limits/rate-limit-middleware.js';
import type { Services } from '../services.js';
import { authenticate } from './authenticate.js';
import { requestDeadline } from './deadline.js';
import { errorMiddleware, notFound } from './error-middleware.js';
import { apiBase, operationGate } from './operation-gate.js';
import { requestId } from './request-id.js';
import { requestLog } from './request-log.js';
import { requestMetrics } from './request-metrics.js';
import { consoleRouter } from './routes/console.js';
import { detailRouter } from './routes/detail.js';
import { docsRouter } from './routes/docs.js';
import { healthMonitor, healthRouter } from './routes/health.js';
import { mastersRouter } from './routes/masters.js';
import { matchRouter } from './routes/match.js';
import { searchRouter } from './routes/search.js';
import { suggestRouter } from './routes/suggest.js';
import { parseSearchBodies } from './search-plan.js';
import { securityHeaders } from './security-headers.js';
import { validateRequests } from './validation.js';

export interface AppOptions {
  /** Default: Redis when services.redis, else the single-process key file (`config.keysFile`). */
  keyStore?: KeyStore;
}

export function createApp(services: Services, options: AppOptions = {}): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  // 1. request id and structured request log (API key redacted); security headers
  app.use(requestId());
  app.use(requestLog(services.logger));
  app.use(securityHeaders());
  app.use(requestMetrics());
  // 2. /health, /livez, /readyz, /docs, /openapi.yaml, /console: no key (the console asks for
  //    one; metrics: src/metrics.ts, on their own port)
  //    (/health and /readyz read the state of one monitor per app, refreshed in the background
  //    while a server made by createHttpServer serves the app: src/http/server.ts)
  const monitor = healthMonitor(services);
  app.locals.healthMonitor = monitor;
  app.use(healthRouter(services, monitor));
  app.use(docsRouter());
  app.use(consoleRouter({ matchCreditCost: services.limits.config.matchCost }));
  // 3. /rest/v1, in this order:
  const api = express.Router();
  //    0. the operation the path names, spelled exactly, or a 404 (every limit and price
  //       belongs to an operation: no other spelling of a path reaches a handler)
  api.use(operationGate());
  //    1. the request's deadline: Redis and OpenSearch get the time left; 503 when it is up
  api.use(
    requestDeadline({
      totalMs: services.config.requestDeadlineMs,
      redisMs: services.config.redisBudgetMs,
      logger: services.logger,
    }),
  );
  //    a. authenticate (X-API-Key) -> res.locals.user
  api.use(
    authenticate(
      options.keyStore ?? keyStoreFor(services.redis, services.config.redisPrefix, services.config.keysFile),
      // the memory is trusted only for the Redis store, whose revocations are announced
      services.keyChanges && !options.keyStore
        ? { changes: services.keyChanges, freshMs: services.config.apiKeyCacheSeconds * 1000 }
        : undefined,
    ),
  );
  //    b. masters: free, not rate-limited
  api.use(mastersRouter());
  //    c. rate limit (src/limits): X-RateLimit-*, 429; Redis away -> 503 (a search's or a
  //       detail's count is made in e., in the round trip of its reservation)
  api.use(rateLimitMiddleware(services.limits, services.logger));
  //    d. JSON body + openapi validation; a search body parsed into its plan; a request
  //       refused here is counted first (429 when over the budget, as if counted in c.)
  api.use(validateRequests());
  api.use(parseSearchBodies(services.config.maxClauseCount));
  api.use(countDeferredRateOnError(services.limits, services.logger));
  //    e. rate count (searches, details), Idempotency-Key and credit reservation in one Redis
  //       round trip (src/limits): 402 before OpenSearch, commit/refund
  api.use(creditsMiddleware(services.limits, services.logger));
  //    f. search, detail, match and suggest routes
  api.use(searchRouter(services));
  api.use(detailRouter(services));
  api.use(matchRouter(services));
  api.use(suggestRouter(services));
  //    g. a failed charged route is refunded before its error response is written
  api.use(refundOnErrorMiddleware(services.limits, services.logger));
  app.use(apiBase, api);
  // 4. unknown route -> 404, then the one error middleware
  app.use(notFound());
  app.use(errorMiddleware(services.logger));
  return app;
}
