/**
 * A webhook receiver on loopback for the tests: it records what it accepted (a 2xx it could
 * still send: a sender that gave up before the answer did not get it), and answers as the test
 * says (a status, or `hang` for `hangMs`). It can go down and come back on the same port.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Config, defaultConfig } from '../../src/config.js';

export interface Received {
  eventId: string;
  type: string;
  body: string;
  signature: string;
  attempt: number;
}

export class Receiver {
  received: Received[] = [];
  /** requests that arrived, answered or not */
  arrivals = 0;
  /** requests arrived and not yet answered, and the most there were at once */
  inFlight = 0;
  maxInFlight = 0;
  /** the status it answers; 'hang' answers after `hangMs` */
  answer: number | 'hang' = 204;
  hangMs = 0;
  private server: Server;
  url = '';

  constructor() {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        this.arrivals += 1;
        this.inFlight += 1;
        this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
        const body = Buffer.concat(chunks).toString();
        const answer = this.answer;
        const reply = (status: number) => {
          this.inFlight -= 1;
          // a sender that gave up (timeout) did not get this answer: not received
          if (res.destroyed || !res.socket || res.socket.destroyed) return;
          if (status >= 200 && status < 300)
            this.received.push({
              eventId: String(req.headers['corpsearch-event-id']),
              type: String(req.headers['corpsearch-event-type']),
              body,
              signature: String(req.headers['corpsearch-signature']),
              attempt: Number(req.headers['corpsearch-delivery-attempt']),
            });
          res.writeHead(status).end();
        };
        if (answer === 'hang') setTimeout(() => reply(204), this.hangMs).unref();
        else reply(answer);
      });
    });
  }

  async start(): Promise<void> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hook`;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }

  /** Listens again on the port it had. */
  async restart(): Promise<void> {
    const port = Number(new URL(this.url).port);
    await new Promise<void>((resolve) => this.server.listen(port, '127.0.0.1', resolve));
  }

  ids(): string[] {
    return this.received.map((entry) => entry.eventId);
  }
}

/**
 * The webhook settings of the delivery tests: loopback allowed, and the 26 hours of retries
 * compressed to 3 s (retries 50 ms apart, doubling to 400 ms; a 400 ms timeout).
 */
export function compressedWebhooks(overrides: Partial<Config['webhooks']> = {}): Config['webhooks'] {
  return {
    ...defaultConfig().webhooks,
    allowLoopback: true,
    timeoutMs: 400,
    retryFirstMs: 50,
    retryMaxDelayMs: 400,
    retryForSeconds: 3,
    stallSeconds: 1,
    dispatchIntervalMs: 50,
    ...overrides,
  };
}
