/**
 * The parts of webhook delivery that need no server of the project's: the address guard
 * (src/webhooks/address.ts), the signature and the receiver's recipe (src/webhooks/signature.ts),
 * the retry schedule (src/webhooks/queue.ts), and one attempt of the sender (src/webhooks/send.ts)
 * against receivers on loopback: a 2xx, a 500, a slow one (timeout), a redirect, a huge answer.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { projectRoot } from '../../src/project-root.js';
import { checkUrl, guardedLookup, refusedAddress } from '../../src/webhooks/address.js';
import { attemptsFor, backoffStrategy, retryDelay } from '../../src/webhooks/queue.js';
import { WebhookSender } from '../../src/webhooks/send.js';
import { signatureHeader, verifySignature } from '../../src/webhooks/signature.js';

const strict = { allowLoopback: false };
const loose = { allowLoopback: true };

describe('address guard', () => {
  it('refuses every non-public range, lets public unicast through', () => {
    for (const address of [
      '10.1.2.3',
      '172.16.0.1',
      '192.168.1.1',
      '127.0.0.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '224.0.0.1',
      '255.255.255.255',
      '::1',
      '::',
      'fe80::1',
      'fc00::1',
      'fd12:3456::1',
      'ff02::1',
      '::ffff:10.0.0.1',
      '::ffff:127.0.0.1',
    ])
      expect(refusedAddress(address, strict), address).toMatch(/never reach/);
    for (const address of ['8.8.8.8', '133.242.0.1', '2001:4860:4860::8888', '::ffff:8.8.8.8'])
      expect(refusedAddress(address, strict), address).toBeNull();
  });

  it('lets loopback through only when allowed, and nothing else private then', () => {
    expect(refusedAddress('127.0.0.1', loose)).toBeNull();
    expect(refusedAddress('::1', loose)).toBeNull();
    expect(refusedAddress('10.0.0.1', loose)).toMatch(/private/);
    expect(refusedAddress('169.254.169.254', loose)).toMatch(/linkLocal/);
  });

  it('checks the URL: https, no credentials, no literal private address', () => {
    expect(checkUrl('https://hooks.example.jp/x', strict)).toBeNull();
    expect(checkUrl('http://hooks.example.jp/x', strict)).toBe('must use https');
    expect(checkUrl('ftp://hooks.example.jp/x', loose)).toBe('must use https');
    expect(checkUrl('not a url', strict)).toBe('must be an absolute URL');
    expect(checkUrl('https://user:pw@hooks.example.jp/', strict)).toMatch(/user name/);
    expect(checkUrl('https://hooks.example.jp/#frag', strict)).toMatch(/fragment/);
    expect(checkUrl('https://10.0.0.1/', strict)).toMatch(/private/);
    expect(checkUrl('https://[::1]/', strict)).toMatch(/loopback/);
    expect(checkUrl('https://localhost/', strict)).toMatch(/loopback/);
    expect(checkUrl('http://127.0.0.1:8080/', loose)).toBeNull();
  });

  it('refuses at connection time a name that resolves to a refused address', async () => {
    const lookup = guardedLookup(strict);
    const error = await new Promise<NodeJS.ErrnoException | null>((resolve) =>
      lookup('localhost', {}, (err) => resolve(err)),
    );
    expect(error?.code).toBe('EWEBHOOKADDRESS');
    const allowed = await new Promise<string | unknown>((resolve) =>
      guardedLookup(loose)('localhost', {}, (_err, address) => resolve(address)),
    );
    expect(String(allowed)).toMatch(/^(127\.0\.0\.1|::1)$/);
    const all = await new Promise<unknown>((resolve) =>
      guardedLookup(loose)('localhost', { all: true }, (_err, addresses) => resolve(addresses)),
    );
    expect(Array.isArray(all)).toBe(true);
  });
});

describe('signature', () => {
  const body = '{"id":"evt_1","type":"company.entered"}';
  const now = new Date('2026-11-29T00:00:00Z');

  it('verifies with its secret, over the exact bytes, within the tolerance', () => {
    const header = signatureHeader(body, ['whsec_a'], now);
    expect(header).toMatch(/^t=1795910400,v1=[0-9a-f]{64}$/);
    expect(verifySignature(body, header, 'whsec_a', { now })).toBe(true);
    expect(verifySignature(body, header, 'whsec_b', { now })).toBe(false);
    expect(verifySignature(`${body} `, header, 'whsec_a', { now })).toBe(false);
    const later = new Date(now.getTime() + 301_000);
    expect(verifySignature(body, header, 'whsec_a', { now: later })).toBe(false);
    expect(verifySignature(body, header.replace('t=1795910400', 't=1795910401'), 'whsec_a', { now })).toBe(
      false,
    );
    expect(verifySignature(body, 'v1=abc', 'whsec_a', { now })).toBe(false);
  });

  it('carries one v1 per secret: both verify during a rotation', () => {
    const header = signatureHeader(body, ['whsec_new', 'whsec_old'], now);
    expect(header.split(',')).toHaveLength(3);
    expect(verifySignature(body, header, 'whsec_new', { now })).toBe(true);
    expect(verifySignature(body, header, 'whsec_old', { now })).toBe(true);
  });
});

describe("the guide's receiver recipe (docs/webhooks.md)", () => {
  it('verifies what the service signs, and refuses a changed body, another secret, an old t', async () => {
    const guide = readFileSync(path.join(projectRoot, 'docs', 'webhooks.md'), 'utf8');
    const recipe = /<!-- recipe: verify-signature -->\n```js\n([\s\S]*?)```/.exec(guide)?.[1];
    expect(recipe).toBeDefined();
    const dir = mkdtempSync(path.join(tmpdir(), 'webhook-recipe-'));
    try {
      const file = path.join(dir, 'verify.mjs');
      writeFileSync(file, recipe as string);
      const { verifyCorpsearchSignature: verify } = (await import(pathToFileURL(file).href)) as {
        verifyCorpsearchSignature: (body: string, header: string, secret: string, now?: number) => boolean;
      };
      const body = '{"id":"evt_1","type":"company.left","data":{"corporateNumber":"1010001000001"}}';
      const now = new Date();
      const header = signatureHeader(body, ['whsec_new', 'whsec_old'], now);
      expect(verify(body, header, 'whsec_new')).toBe(true);
      expect(verify(body, header, 'whsec_old')).toBe(true);
      expect(verify(body, header, 'whsec_other')).toBe(false);
      expect(verify(body.replace('left', 'entered'), header, 'whsec_new')).toBe(false);
      expect(verify(body, header, 'whsec_new', now.getTime() / 1000 + 301)).toBe(false);
      expect(verify(body, 'v1=00', 'whsec_new')).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('retry schedule', () => {
  const production = { firstMs: 30_000, maxDelayMs: 900_000, forMs: 93_600_000 };

  it('doubles from the first delay up to the cap', () => {
    expect([1, 2, 3, 4, 5, 6, 7, 20].map((n) => retryDelay(production, n))).toEqual([
      30_000, 60_000, 120_000, 240_000, 480_000, 900_000, 900_000, 900_000,
    ]);
  });

  it('makes attempts for at least the whole period, and not one more than needed', () => {
    const attempts = attemptsFor(production);
    let waited = 0;
    for (let n = 1; n < attempts; n += 1) waited += retryDelay(production, n);
    expect(waited).toBeGreaterThanOrEqual(production.forMs);
    expect(waited - retryDelay(production, attempts - 1)).toBeLessThan(production.forMs);
    // 30 s + 1 + 2 + 4 + 8 min, then 103 waits of 15 min: 109 attempts over 26 h
    expect(attempts).toBe(109);
  });

  it('spreads each delay by at most 10 %', () => {
    expect(backoffStrategy(production, () => 0)(1)).toBe(27_000);
    expect(backoffStrategy(production, () => 1)(1)).toBe(33_000);
  });
});

describe('sender', () => {
  let server: Server;
  let base: string;
  const seen: Array<{ path: string; headers: IncomingMessage['headers']; body: string }> = [];
  const hugeEnded: string[] = [];
  const routes: Record<string, (res: ServerResponse) => void> = {
    '/ok': (res) => res.writeHead(204).end(),
    '/kept': (res) => res.writeHead(204).end(),
    '/fail': (res) => res.writeHead(500).end('no'),
    '/slow': (res) => {
      setTimeout(() => res.writeHead(200).end(), 2_000).unref();
    },
    // an answer whose bytes come slowly, each within the timeout, all of them past it
    '/trickle': (res) => {
      res.writeHead(200);
      let written = 0;
      const timer = setInterval(() => {
        written += 1;
        if (written < 10) res.write('x');
        else {
          clearInterval(timer);
          res.end();
        }
      }, 200);
      res.once('close', () => clearInterval(timer));
    },
    '/redirect': (res) => res.writeHead(302, { location: '/ok' }).end(),
    // an answer that breaks off in its body
    '/cut': (res) => {
      res.writeHead(200, { 'content-length': '100' });
      res.write('x', () => setTimeout(() => res.socket?.destroy(), 20));
    },
    '/huge': (res) => {
      // how the answer ended: all of it written, or cut off by the sender
      res.once('close', () => hugeEnded.push(res.writableFinished ? 'written' : 'cut'));
      res.writeHead(200);
      const chunk = Buffer.alloc(64 * 1024, 97);
      let sent = 0;
      const more = () => {
        while (sent < 100 && res.write(chunk)) sent += 1;
        if (sent >= 100) res.end();
        else res.once('drain', more);
      };
      more();
    },
  };

  beforeAll(async () => {
    server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        seen.push({ path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString() });
        (routes[req.url ?? ''] ?? ((r: ServerResponse) => r.writeHead(404).end()))(res);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  const sender = () => new WebhookSender({ policy: loose, timeoutMs: 500, maxResponseBytes: 1024 });

  it('sends the body and headers; a 2xx is delivered, anything else is not', async () => {
    const s = sender();
    try {
      const ok = await s.send(`${base}/ok`, '{"a":1}', { 'corpsearch-event-id': 'evt_1' });
      expect(ok).toMatchObject({ ok: true, statusCode: 204, error: null });
      const got = seen.find((entry) => entry.headers['corpsearch-event-id'] === 'evt_1');
      expect(got?.body).toBe('{"a":1}');
      expect(got?.headers['content-type']).toBe('application/json');
      expect(got?.headers['corpsearch-event-id']).toBe('evt_1');
      expect(await s.send(`${base}/fail`, '{}', {})).toMatchObject({
        ok: false,
        statusCode: 500,
        error: 'answered 500',
      });
      // a redirect is not followed: the receiver must answer where it was told to
      expect(await s.send(`${base}/redirect`, '{}', {})).toMatchObject({ ok: false, statusCode: 302 });
    } finally {
      await s.close();
    }
  });

  it('gives up on a slow receiver at the timeout, and reads at most the cap of an answer', async () => {
    const s = sender();
    try {
      const slow = await s.send(`${base}/slow`, '{}', {});
      expect(slow).toMatchObject({ ok: false, statusCode: null, error: 'timeout' });
      expect(slow.durationMs).toBeLessThan(1_900);
      // the timeout bounds the whole attempt, not each wait for a byte
      const trickle = await s.send(`${base}/trickle`, '{}', {});
      expect(trickle).toMatchObject({ ok: false, statusCode: null, error: 'timeout' });
      expect(trickle.durationMs).toBeLessThan(1_500);
      const huge = await s.send(`${base}/huge`, '{}', {});
      expect(huge).toMatchObject({ ok: true, statusCode: 200 });
      // 6.4 MB offered, the cap read: the sender closed the connection before the rest
      await vi.waitFor(() => expect(hugeEnded).toEqual(['cut']));
    } finally {
      await s.close();
    }
  });

  it('refuses loopback when not allowed, by name and by literal, without connecting', async () => {
    const s = new WebhookSender({ policy: strict, timeoutMs: 500, maxResponseBytes: 1024 });
    const before = seen.length;
    try {
      expect(await s.send(`${base}/ok`, '{}', {})).toMatchObject({ ok: false, error: 'refused address' });
      const byName = base.replace('http://127.0.0.1', 'https://localhost');
      expect(await s.send(`${byName}/ok`, '{}', {})).toMatchObject({ ok: false, error: 'refused address' });
      expect(seen.length).toBe(before);
    } finally {
      await s.close();
    }
  });

  it("keeps a receiver's connection for its next deliveries", async () => {
    const s = sender();
    let connections = 0;
    const count = () => {
      connections += 1;
    };
    server.on('connection', count);
    try {
      for (let i = 0; i < 3; i++) {
        expect(await s.send(`${base}/kept`, '{}', {})).toMatchObject({ ok: true });
        // the connection goes back to the pool once its answer is done (a tick later)
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      expect(connections).toBe(1);
    } finally {
      server.off('connection', count);
      await s.close();
    }
  });

  it('sends once more on a new connection when the receiver closed the kept one', async () => {
    // the first request on a kept connection is dropped unanswered, as by a receiver that
    // closed an idle connection just as the next delivery went out on it
    const requests = new Map<unknown, number>();
    let dropped = 0;
    const dropping = createServer((req, res) => {
      const n = (requests.get(req.socket) ?? 0) + 1;
      requests.set(req.socket, n);
      req.resume();
      req.on('end', () => {
        if (n === 2 && dropped === 0) {
          dropped += 1;
          req.socket.destroy();
        } else res.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => dropping.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(dropping.address() as AddressInfo).port}/`;
    const s = sender();
    try {
      expect(await s.send(url, '{}', {})).toMatchObject({ ok: true, statusCode: 204 });
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(await s.send(url, '{}', {})).toMatchObject({ ok: true, statusCode: 204, error: null });
      // the dropped one and its second sending, on a connection of its own
      expect(dropped).toBe(1);
      expect([...requests.values()]).toEqual([2, 1]);
    } finally {
      await s.close();
      dropping.closeAllConnections();
      await new Promise((resolve) => dropping.close(resolve));
    }
  });

  it('does not send again an answer that broke off in its body: the attempt fails', async () => {
    const s = sender();
    const before = seen.filter((entry) => entry.path === '/cut').length;
    try {
      expect(await s.send(`${base}/cut`, '{}', {})).toMatchObject({ ok: false, error: 'connection reset' });
      expect(seen.filter((entry) => entry.path === '/cut').length - before).toBe(1);
    } finally {
      await s.close();
    }
  });

  it('a receiver that is not there: connection refused', async () => {
    const s = sender();
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    try {
      expect(await s.send(`http://127.0.0.1:${port}/`, '{}', {})).toMatchObject({
        ok: false,
        error: 'connection refused',
      });
    } finally {
      await s.close();
    }
  });
});
