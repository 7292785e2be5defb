/**
 * The Express app. The middleware order is this one list, top to bottom; under /rest/v1 it is
 * auth -> (masters: free, unlimited) -> rate limit -> validation -> credits -> search.
 */
import express, { type Express } from 'express';
import type { Services } from '../services.js';
import { healthRouter } from './routes/health.js';

export function createApp(services: Services): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  // 1. request id and structured request log (API key redacted)
  // 2. /health, /docs, /openapi.yaml: no key
  app.use(healthRouter(services));
  // 3. /rest/v1: authenticate (X-API-Key) -> masters -> rate limit -> JSON body + openapi
  //    validation -> credit reservation -> search and detail routes
  // 4. unknown route -> 404, then the one error middleware
  return app;
}
