/**
 * The Express app. The middleware order is this one list, top to bottom.
 */
import express, { type Express } from 'express';
import type { Services } from '../services.js';
import { healthRouter } from './routes/health.js';

export function createApp(services: Services): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.use(healthRouter(services));
  return app;
}
