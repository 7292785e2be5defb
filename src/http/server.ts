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
 *   1,000 requests per connection: a keep-alive connection is recycled now and then, so load
 *   spreads again over API processes behind a balancer. The 1,000th answer is a normal one
 *   carrying `Connection: close`, and the server closes the connection after it. (Node's own
 *   `maxRequestsPerSocket` marks that answer too, but answers 503 to any further request a
 *   client sends on the connection, and clients that ignore `Connection: close` do.)
 *
 * Values from the config (HTTP_HEADERS_TIMEOUT_MS, HTTP_REQUEST_TIMEOUT_MS,
 * HTTP_KEEP_ALIVE_TIMEOUT_MS); requestTimeout is kept above headersTimeout as Node requires.
 *
 * The app's probe monitor (src/http/readiness.ts, one per app, so one per process) starts
 * checking the engine and Redis when the server listens and stops when it closes.
 */
import http, { type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Express } from 'express';
import type { Config } from '../config.js';
import { type FastPath, offerFastPath } from './masters-fast-path.js';
import type { HealthMonitor } from './readiness.js';

/** Requests one keep-alive connection serves before it is closed after a normal answer. */
export const REQUESTS_PER_CONNECTION = 1000;

export function createHttpServer(
  app: Express,
  limits: Config['http'],
  requestsPerConnection = REQUESTS_PER_CONNECTION,
): Server {
  const headersTimeout = limits.headersTimeoutMs;
  const server = http.createServer(
    {
      headersTimeout,
      requestTimeout: Math.max(limits.requestTimeoutMs, headersTimeout + 1),
      keepAliveTimeout: limits.keepAliveTimeoutMs,
      connectionsCheckingInterval: Math.min(1000, headersTimeout),
    },
    withFastPath(app),
  );
  server.prependListener('request', closeAfter(requestsPerConnection));
  const monitor = app.locals.healthMonitor as HealthMonitor | undefined;
  if (monitor) {
    server.on('listening', () => monitor.start());
    server.on('close', () => monitor.stop());
  }
  return server;
}

/**
 * The app behind its fast path (src/http/masters-fast-path.ts), when it has one: a request the
 * fast path answers never enters Express.
 */
function withFastPath(app: Express): (req: IncomingMessage, res: ServerResponse) => void {
  const fastPath = app.locals.fastPath as FastPath | undefined;
  if (!fastPath) return app;
  return (req: IncomingMessage, res: ServerResponse) => {
    if (!offerFastPath(fastPath, req, res)) app(req, res);
  };
}

/**
 * A request listener that marks the n-th answer on a connection `Connection: close`; Node then
 * ends the connection once that answer is written (a client that sent another request on it
 * sees the connection close and opens a new one, as after any `Connection: close`).
 */
function closeAfter(n: number): (req: IncomingMessage, res: ServerResponse) => void {
  const served = new WeakMap<Socket, number>();
  return (req, res) => {
    const count = (served.get(req.socket) ?? 0) + 1;
    served.set(req.socket, count);
    if (count >= n) res.setHeader('Connection', 'close');
  };
}
