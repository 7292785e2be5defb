/**
 * The HTTP server around the app, with bounds for slow or stuck clients (Node's defaults let a
 * client that sends one header byte every few seconds keep its connection for up to 5 min):
 *
 *   headersTimeout   10 s  request line and headers complete      -> 408, connection closed
 *   requestTimeout   15 s  whole request, body included          -> 408, connection closed
 *                          (a Content-Length larger than the body sent)
 *   keepAliveTimeout  5 s  idle keep-alive connection            -> closed
 *   checked every 1 s (connectionsCheckingInterval; Node's default of 30 s would let a slow
 *   client overstay each limit by up to 30 s)
 *   maxRequestsPerSocket 1000: a keep-alive connection is recycled now and then, so load
 *   spreads again over API processes behind a balancer
 *
 * Values from the config (HTTP_HEADERS_TIMEOUT_MS, HTTP_REQUEST_TIMEOUT_MS,
 * HTTP_KEEP_ALIVE_TIMEOUT_MS); requestTimeout is kept above headersTimeout as Node requires.
 *
 * The app's probe monitor (src/http/readiness.ts, one per app, so one per process) starts
 * checking the engine and Redis when the server listens and stops when it closes.
 */
import http, { type Server } from 'node:http';
import type { Express } from 'express';
import type { Config } from '../config.js';
import type { HealthMonitor } from './readiness.js';

export function createHttpServer(app: Express, limits: Config['http']): Server {
  const headersTimeout = limits.headersTimeoutMs;
  const server = http.createServer(
    {
      headersTimeout,
      requestTimeout: Math.max(limits.requestTimeoutMs, headersTimeout + 1),
      keepAliveTimeout: limits.keepAliveTimeoutMs,
      connectionsCheckingInterval: Math.min(1000, headersTimeout),
    },
    app,
  );
  server.maxRequestsPerSocket = 1000;
  const monitor = app.locals.healthMonitor as HealthMonitor | undefined;
  if (monitor) {
    server.on('listening', () => monitor.start());
    server.on('close', () => monitor.stop());
  }
  return server;
}
