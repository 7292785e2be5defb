/**
 * A loopback HTTP proxy in front of the test OpenSearch that answers the engine's read
 * requests (`_search`, `_count`, `_msearch`, `_mget`, `_doc`, point-in-time and scroll) with a
 * chosen fault instead of passing them on: the ways a real engine or the network between fails
 * that a stopped process does not show.
 *
 *   pass        every request goes through unchanged
 *   status-429  429 es_rejected_execution_exception (a full search queue)
 *   status-503  503 (no shard available)
 *   status-500  500 search_phase_execution_exception
 *   reset       the connection is destroyed before any byte of the answer
 *   truncated   200 with a Content-Length, half the body, then the connection is destroyed
 *   malformed   200 application/json whose body is not JSON
 *   hang        the request is held, never answered, until the proxy closes
 *   slow        the request goes through after `slowMs` (default 2 s): work kept in flight
 *
 * Every injected body carries `faultSecret`, so a test can show that no engine text reaches a
 * response or a log line. Other requests (cluster health, index creation) always pass.
 */
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export type Fault =
  | 'pass'
  | 'status-429'
  | 'status-503'
  | 'status-500'
  | 'reset'
  | 'truncated'
  | 'malformed'
  | 'hang'
  | 'slow';

export const faultSecret = 'fault-proxy-secret-index-t9';

export interface FaultProxy {
  url: string;
  /** The fault read requests get from now on; the first `passFirst` reads still go through. */
  set(fault: Fault, passFirst?: number): void;
  /** Read requests answered with a fault since the proxy started. */
  faulted(): number;
  close(): Promise<void>;
}

const readPath =
  /\/(_search|_count|_msearch|_mget|_doc|_source|_pit|_search\/point_in_time|_search\/scroll)(\/|\?|$)/;

function engineError(status: number, type: string): string {
  return JSON.stringify({
    error: { type, reason: `[${faultSecret}] ${type}`, root_cause: [{ type, reason: faultSecret }] },
    status,
  });
}

function answerWithFault(fault: Fault, res: http.ServerResponse, held: Set<http.ServerResponse>): void {
  switch (fault) {
    case 'status-429':
      res
        .writeHead(429, { 'content-type': 'application/json' })
        .end(engineError(429, 'es_rejected_execution_exception'));
      return;
    case 'status-503':
      res
        .writeHead(503, { 'content-type': 'application/json' })
        .end(engineError(503, 'no_shard_available_action_exception'));
      return;
    case 'status-500':
      res
        .writeHead(500, { 'content-type': 'application/json' })
        .end(engineError(500, 'search_phase_execution_exception'));
      return;
    case 'reset':
      res.socket?.destroy();
      return;
    case 'truncated': {
      const body = JSON.stringify({
        took: 1,
        timed_out: false,
        hits: { total: { value: 1 }, hits: [{ _id: faultSecret }] },
      });
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(body.length) });
      res.write(body.slice(0, body.length >> 1));
      setTimeout(() => res.socket?.destroy(), 20);
      return;
    }
    case 'malformed':
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(`{"took":1,"hits":{"hits":[${faultSecret}`);
      return;
    case 'hang':
      held.add(res);
      return;
    case 'pass':
    case 'slow':
      return;
  }
}

function forward(upstream: URL, req: http.IncomingMessage, res: http.ServerResponse): void {
  const out = http.request(
    {
      host: upstream.hostname,
      port: upstream.port,
      method: req.method,
      path: req.url,
      headers: { ...req.headers, host: upstream.host },
    },
    (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    },
  );
  out.on('error', () => res.socket?.destroy());
  req.pipe(out);
}

export async function startFaultProxy(
  upstreamUrl: string,
  /** `only`: fault just the read requests whose path matches (e.g. opening a point in time). */
  opts: { slowMs?: number; only?: RegExp } = {},
): Promise<FaultProxy> {
  const upstream = new URL(upstreamUrl);
  let fault: Fault = 'pass';
  let passing = 0;
  let faulted = 0;
  const held = new Set<http.ServerResponse>();
  const sockets = new Set<Socket>();
  const server = http.createServer((req, res) => {
    if (fault === 'pass' || !readPath.test(req.url ?? '') || (opts.only && !opts.only.test(req.url ?? ''))) {
      forward(upstream, req, res);
      return;
    }
    if (passing > 0) {
      passing--;
      forward(upstream, req, res);
      return;
    }
    faulted++;
    if (fault === 'slow') {
      const timer = setTimeout(() => forward(upstream, req, res), opts.slowMs ?? 2_000);
      res.on('close', () => clearTimeout(timer));
      return;
    }
    // the request body is read (and dropped) first, as an engine would
    req.resume();
    req.on('end', () => answerWithFault(fault, res, held));
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    set: (next, passFirst = 0) => {
      fault = next;
      passing = passFirst;
    },
    faulted: () => faulted,
    close: () =>
      new Promise<void>((resolve) => {
        held.clear();
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
