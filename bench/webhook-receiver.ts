/**
 * The webhook bench's receiver, in a process of its own (bench/webhook-latency.ts starts it):
 * a customer's server is not on the worker's thread, so its work must not be timed there. It
 * answers every delivery 204 and notes when each event id first arrived; GET /arrivals lists
 * them, GET /count how many, GET /health answers once it listens. Loopback only (HOST, PORT from the bench).
 */
import { createServer } from 'node:http';

const arrivals = new Map<string, { at: number; createdAt: string }>();

const server = createServer((req, res) => {
  if (req.method === 'GET') {
    if (req.url === '/arrivals') {
      const list = [...arrivals].map(([id, { at, createdAt }]) => ({ id, at, createdAt }));
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(list));
    } else if (req.url === '/count') res.writeHead(200).end(String(arrivals.size));
    else res.writeHead(req.url === '/health' ? 200 : 404).end();
    return;
  }
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    const event = JSON.parse(Buffer.concat(chunks).toString()) as { id: string; createdAt: string };
    if (!arrivals.has(event.id)) arrivals.set(event.id, { at: Date.now(), createdAt: event.createdAt });
    res.writeHead(204).end();
  });
});
server.listen(Number(process.env.PORT), process.env.HOST ?? '127.0.0.1');
process.on('SIGTERM', () => server.close(() => process.exit(0)));
