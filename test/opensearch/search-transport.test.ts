/**
 * The search path's thin transport (src/opensearch/search-transport.ts) against the real
 * engine, beside the OpenSearch client it stands in for: the same answers; the same error
 * classes, statuses, transient verdicts and API errors for the engine's refusals and for the
 * faults of test/support/fault-proxy.ts (the same resends too); a dead node left out as the
 * client leaves it out; and a search under a deadline that ends at the deadline, or when the
 * caller hangs up, by closing its connection.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Client } from '@opensearch-project/opensearch';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { corporateSearch } from '../../src/catalogue/searches.js';
import { Deadline, DeadlineExceeded } from '../../src/deadline.js';
import { createLogger } from '../../src/logger.js';
import { createOpenSearchClient, searchRequestTimeoutMs } from '../../src/opensearch/client.js';
import { createEngine } from '../../src/opensearch/engine.js';
import { indexName } from '../../src/opensearch/indices.js';
import { isTransientError } from '../../src/opensearch/retry.js';
import { createSearchTransport, type EngineCallOptions } from '../../src/opensearch/search-transport.js';
import { compileSearch } from '../../src/search/compile-search.js';
import { toSearchError } from '../../src/search/opensearch-errors.js';
import { engineSearch, type SearchRequest } from '../../src/search/paging/pit-search.js';
import { parseSearchRequest } from '../../src/search/parse-request.js';
import type { Services } from '../../src/services.js';
import { corporate, indexFixture } from '../fixtures/search/docs.js';
import { startDeadEndpoint } from '../support/dead-endpoint.js';
import { setUpServices } from '../support/env.js';
import { type Fault, faultSecret, startFaultProxy } from '../support/fault-proxy.js';

let services: Services;
let prefix: string;
const logger = createLogger('silent');

beforeAll(async () => {
  services = await setUpServices('search-transport');
  prefix = services.config.indexPrefix;
  await indexFixture(services.opensearch, prefix, {
    corporates: Array.from({ length: 6 }, (_, i) => corporate({ name: `株式会社転送${i}` })),
  });
});

afterAll(async () => {
  await services?.close();
});

function companies(body: Record<string, unknown> = { limit: 10 }): SearchRequest {
  return compileSearch(corporateSearch, parseSearchRequest(corporateSearch, body), prefix);
}

const idsOf = (body: unknown) =>
  ((body as { hits: { hits: Array<{ _id: string }> } }).hits.hits ?? []).map((hit) => hit._id);

/** What a failed call looks like to the code that reads it: class, status, type, verdicts. */
async function outcome(call: () => Promise<unknown>) {
  try {
    await call();
    return 'answered';
  } catch (error) {
    const meta = (error as { meta?: { statusCode?: number; body?: { error?: { type?: string } } } }).meta;
    const mapped = toSearchError(error, logger);
    return {
      name: (error as Error).name,
      status: meta?.statusCode,
      type: meta?.body?.error?.type,
      transient: isTransientError(error),
      api: `${mapped.status} ${mapped.code}`,
    };
  }
}

const rawClients: Client[] = [];
afterAll(async () => {
  await Promise.all(rawClients.map((client) => client.close()));
});

/** A client of the engine at `url` as the engine port makes one, and its thin transport. */
function thinOf(url: string) {
  const client = createOpenSearchClient(url);
  rawClients.push(client);
  return {
    client,
    thin: createSearchTransport(client, { requestTimeoutMs: searchRequestTimeoutMs, maxRetries: 1 }),
  };
}

/** The two ways to send a search to the engine at `url`: the thin transport and the client itself. */
function bothWays(url: string) {
  const { client, thin } = thinOf(url);
  return {
    thin: (request: SearchRequest, options?: EngineCallOptions) => thin.search(request, options),
    client: (request: SearchRequest, options: EngineCallOptions = {}) => client.search(request, options),
  };
}

describe('answers', () => {
  it('a search, a search whose body is already text and an msearch answer as through the client', async () => {
    const { thin, client } = bothWays(services.config.opensearchUrl as string);
    const request = companies();
    const expected = idsOf((await client(request)).body);
    expect(expected).toHaveLength(6);
    expect(idsOf((await thin(request)).body)).toEqual(expected);
    const text = { ...request, body: JSON.stringify(request.body) as never };
    expect(idsOf((await thin(text)).body)).toEqual(expected);
    const lines = [
      { index: request.index },
      request.body,
      { index: request.index },
      { ...request.body, size: 2 },
    ];
    const { body } = await thinOf(services.config.opensearchUrl as string).thin.msearch({
      body: lines as never,
    });
    const responses = (body as { responses: unknown[] }).responses;
    expect(responses.map(idsOf)).toEqual([expected, expected.slice(0, 2)]);
  });
});

describe('refusals of the engine', () => {
  it.each([
    [
      'a query the engine cannot parse (400)',
      () => ({ index: indexName(prefix, 'corporates'), body: { query: { no_such_query: {} } } }),
      { status: 400, transient: false, api: '400 query_rejected' },
    ],
    [
      'a missing index (404)',
      () => ({ index: `${prefix}missing`, body: { query: { match_all: {} } } }),
      { status: 404, transient: false, api: '500 internal_error' },
    ],
  ])('%s: the same error as the client raises, mapped the same', async (_label, request, expected) => {
    const { thin, client } = bothWays(services.config.opensearchUrl as string);
    const fromClient = await outcome(() => client(request() as never));
    expect(fromClient).toMatchObject({ name: 'ResponseError', ...expected });
    expect(await outcome(() => thin(request() as never))).toEqual(fromClient);
  });
});

describe('faults between the API and the engine', () => {
  let proxy: Awaited<ReturnType<typeof startFaultProxy>>;
  beforeAll(async () => {
    proxy = await startFaultProxy(services.config.opensearchUrl as string);
  });
  afterAll(async () => {
    await proxy?.close();
  });

  const faults: Fault[] = ['status-429', 'status-503', 'status-500', 'reset', 'truncated', 'malformed'];
  it.each(faults)(
    '%s: the same error and the same resends as the client, a 503 to the caller',
    async (fault) => {
      const { thin, client } = bothWays(proxy.url);
      proxy.set(fault);
      const sent = async (call: () => Promise<unknown>) => {
        const before = proxy.faulted();
        const result = await outcome(call);
        return { result, sent: proxy.faulted() - before };
      };
      // as under a deadline (no resend), then with the client's own default (one resend)
      for (const options of [{ requestTimeout: 5_000, maxRetries: 0 }, undefined]) {
        const fromClient = await sent(() => client(companies(), options));
        expect(fromClient.result).toMatchObject({ api: '503 search_unavailable' });
        expect(JSON.stringify(fromClient.result)).not.toContain(faultSecret);
        expect(await sent(() => thin(companies(), options))).toEqual(fromClient);
      }
      proxy.set('pass');
      expect(idsOf((await thin(companies())).body)).toHaveLength(6);
    },
  );
});

describe('nodes', () => {
  it('a node that refuses connections is marked dead and the search goes to the next one', async () => {
    const dead = await startDeadEndpoint();
    const { client, thin } = thinOf(`${dead.url},${services.config.opensearchUrl}`);
    try {
      for (let i = 0; i < 3; i++) expect(idsOf((await thin.search(companies())).body)).toHaveLength(6);
      const deadNode = client.connectionPool.connections.find(
        (c) => c.url.origin === new URL(dead.url).origin,
      );
      expect(deadNode?.status).toBe('dead');
    } finally {
      rawClients.splice(rawClients.indexOf(client), 1);
      await client.close();
      await dead.close();
    }
  });
});

describe('a search under a deadline', () => {
  /** An engine that takes every search and never answers; it records when a connection closes. */
  async function silentEngine() {
    const closed: number[] = [];
    let received = 0;
    const server = http.createServer((req) => {
      received++;
      req.resume();
      req.socket.on('close', () => closed.push(Date.now()));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    return {
      url,
      closed,
      received: () => received,
      close: () => new Promise<void>((resolve) => server.close(() => resolve())),
    };
  }

  async function searchSilently(deadline: Deadline, whileWaiting?: (engine: { received(): number }) => void) {
    const engine = await silentEngine();
    const opensearch = createEngine(engine.url);
    try {
      const searching = engineSearch({ opensearch, logger, deadline }, companies());
      whileWaiting?.(engine);
      const error = await searching.then(
        () => undefined,
        (caught: unknown) => caught,
      );
      const endedAt = Date.now();
      await waitFor(() => engine.closed.length > 0);
      return { error, endedAt, closedAt: engine.closed[0] as number };
    } finally {
      await opensearch.close();
      await engine.close();
    }
  }

  it('ends at the deadline as DeadlineExceeded, and closes its connection (the engine cancels the task)', async () => {
    const deadline = new Deadline({ totalMs: 400, redisMs: 100 });
    const { error, endedAt } = await searchSilently(deadline);
    expect(error).toBeInstanceOf(DeadlineExceeded);
    expect(endedAt).toBeGreaterThanOrEqual(deadline.expiresAt - 5);
  });

  it('ends when the caller hangs up, before the deadline, and closes its connection', async () => {
    const deadline = new Deadline({ totalMs: 60_000, redisMs: 100 });
    const { error, endedAt } = await searchSilently(deadline, (engine) => {
      void waitFor(() => engine.received() > 0).then(() => deadline.cancel('the caller hung up'));
    });
    expect(error).toBeInstanceOf(DeadlineExceeded);
    expect(endedAt).toBeLessThan(deadline.expiresAt);
  });
});

async function waitFor(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 500 && !condition(); i++) await new Promise((resolve) => setTimeout(resolve, 20));
  if (!condition()) throw new Error('the condition never held');
}
