/**
 * The search path's way to the engine: `_search` and `_msearch` as one `node:http` request
 * each, the JSON text of the body in, the answer's text out and parsed once. Everything
 * else about the connection is the client's (src/opensearch/client.ts): the node it picks,
 * the nodes it has marked dead, its keep-alive agent (TLS with the CA file), the basic-auth
 * header, the close. The failures are the client's own error classes, raised in the client's
 * cases, so the deadline (src/opensearch/deadline.ts), the transient rule (retry.ts), the
 * access failures (access-failures.ts) and the API's mapping (src/search/opensearch-errors.ts)
 * read them as before. What it leaves out is the client's per-request machinery (events,
 * request metadata, header and query-string copies), measured as docs/bench.md, "The engine
 * call", says (docs/decisions/api-cpu-cost.md).
 *
 *   const transport = createSearchTransport(client, { requestTimeoutMs: 10_000, maxRetries: 1 }); // ./engine.ts does this
 *   const { body } = await transport.search({ index, body }, { requestTimeout: 2000, maxRetries: 0, signal });
 */
import http from 'node:http';
import https from 'node:https';
import { stringify } from 'node:querystring';
import { type API, type Client, errors as clientErrors } from '@opensearch-project/opensearch';

/**
 * `requestTimeout`: the whole call, the answer read included (the client's is an idle timer);
 * `maxRetries`: resends after a failed connection or a 502/503/504, as the client counts them;
 * `signal`: abandons the call (the connection is closed, which cancels the engine's task).
 */
export interface EngineCallOptions {
  requestTimeout?: number;
  maxRetries?: number;
  signal?: AbortSignal;
}

export interface SearchTransport {
  search(
    request: API.Search_Request,
    options?: EngineCallOptions,
  ): Promise<{ body: API.Search_ResponseBody }>;
  msearch(
    request: API.Msearch_Request,
    options?: EngineCallOptions,
  ): Promise<{ body: API.Msearch_ResponseBody }>;
}

/** What a call takes when its options say nothing: the client's own settings. */
export interface TransportDefaults {
  requestTimeoutMs: number;
  maxRetries: number;
}

interface EngineCall {
  path: string;
  body: string;
  contentType: string;
}

interface Answer {
  statusCode: number;
  headers: http.IncomingHttpHeaders;
  text: string;
}

type Connection = NonNullable<ReturnType<Client['connectionPool']['getConnection']>>;

export function createSearchTransport(client: Client, defaults: TransportDefaults): SearchTransport {
  const send = (call: EngineCall, options: EngineCallOptions = {}) =>
    sendWithRetries(client, call, defaults, options);
  return {
    search: async (request, options) => ({ body: (await send(searchCall(request), options)) as never }),
    msearch: async (request, options) => ({ body: (await send(msearchCall(request), options)) as never }),
  };
}

/** `index` as the client writes it into the path (an array becomes `a%2Cb`, which the engine reads as a list). */
function pathOf(index: unknown, endpoint: string, query: Record<string, unknown>): string {
  const prefix =
    index === undefined || index === null || index === '' ? '' : `/${encodeURIComponent(String(index))}`;
  const search = queryString(query);
  return `${prefix}/${endpoint}${search === '' ? '' : `?${search}`}`;
}

/** The client's query string: undefined values left out, arrays as comma-separated lists. */
function queryString(query: Record<string, unknown>): string {
  const values: Record<string, string | number | boolean> = {};
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined) continue;
    values[key] = Array.isArray(value) ? value.join(',') : (value as string | number | boolean);
  }
  return stringify(values);
}

function searchCall(request: API.Search_Request): EngineCall {
  const { index, body, ...query } = request as { index?: unknown; body?: unknown } & Record<string, unknown>;
  return {
    path: pathOf(index, '_search', query),
    // a body already written as text (src/search/paging/pit-search.ts withExactLongs) goes as it is
    body: typeof body === 'string' ? body : JSON.stringify(body ?? {}),
    contentType: 'application/json',
  };
}

function msearchCall(request: API.Msearch_Request): EngineCall {
  const { index, body, ...query } = request as { index?: unknown; body: unknown[] } & Record<string, unknown>;
  let text = '';
  for (const line of body) text += `${typeof line === 'string' ? line : JSON.stringify(line)}\n`;
  return { path: pathOf(index, '_msearch', query), body: text, contentType: 'application/x-ndjson' };
}

/**
 * One call, resent as the client resends: a failed connection, a timeout or a 502/503/504
 * marks the node dead and, while `maxRetries` allows, goes to the next node; an answer from a
 * node marks it alive. An abandoned call is never resent.
 */
async function sendWithRetries(
  client: Client,
  call: EngineCall,
  defaults: TransportDefaults,
  options: EngineCallOptions,
): Promise<unknown> {
  const maxRetries = options.maxRetries ?? defaults.maxRetries;
  const timeoutMs = options.requestTimeout ?? defaults.requestTimeoutMs;
  for (let attempt = 0; ; attempt++) {
    const connection = client.transport.getConnection({ requestId: '' });
    if (!connection) throw new clientErrors.NoLivingConnectionsError(undefined as never, undefined as never);
    let answer: Answer;
    try {
      answer = await exchange(connection, call, timeoutMs, options.signal);
    } catch (error) {
      if (error instanceof clientErrors.RequestAbortedError) throw error;
      client.connectionPool.markDead(connection);
      if (attempt < maxRetries) continue;
      throw error;
    }
    const body = bodyOf(answer);
    if (answer.statusCode === 502 || answer.statusCode === 503 || answer.statusCode === 504) {
      client.connectionPool.markDead(connection);
      if (attempt < maxRetries) continue;
    } else client.connectionPool.markAlive(connection);
    if (answer.statusCode >= 400) throw responseError(answer, body);
    return body;
  }
}

/** The answer's body as the client reads it: parsed when it says it is JSON, else its text. */
function bodyOf(answer: Answer): unknown {
  const type = answer.headers['content-type'] ?? '';
  const json = type.includes('application/json') || type.includes('application/vnd.opensearch+json');
  if (!json || answer.text === '') return answer.text;
  try {
    return JSON.parse(answer.text);
  } catch (error) {
    // the client's class, so an answer cut short or garbled is a 503 as before
    throw new clientErrors.DeserializationError((error as Error).message, answer.text as never);
  }
}

/** The `meta` the client gives a call that got no (whole) answer. */
function noAnswer(response?: http.IncomingMessage): never {
  return {
    body: null,
    statusCode: response?.statusCode ?? null,
    headers: response?.headers ?? null,
    warnings: null,
    meta: {},
  } as never;
}

function responseError(answer: Answer, body: unknown): Error {
  return new clientErrors.ResponseError({
    body,
    statusCode: answer.statusCode,
    headers: answer.headers,
    warnings: null,
    meta: {} as never,
  });
}

/**
 * The request itself, on the client's connection: its agent (keep-alive; TLS with the CA
 * file for https nodes) and its headers (basic auth). It ends at `timeoutMs` or when `signal`
 * aborts, the answer's body included, by destroying the request (the connection closes).
 */
function exchange(
  connection: Connection,
  call: EngineCall,
  timeoutMs: number,
  signal: AbortSignal | undefined,
): Promise<Answer> {
  return new Promise<Answer>((resolve, reject) => {
    if (signal?.aborted) {
      reject(new clientErrors.RequestAbortedError('Request aborted', noAnswer()));
      return;
    }
    const request = requestOn(connection, call);
    let settled = false;
    const settle = (error: Error | undefined, answer?: Answer) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      if (error) {
        request.destroy();
        reject(error);
      } else resolve(answer as Answer);
    };
    const timer = setTimeout(
      () => settle(new clientErrors.TimeoutError('Request timed out', noAnswer())),
      timeoutMs,
    );
    const onAbort = () => settle(new clientErrors.RequestAbortedError('Request aborted', noAnswer()));
    signal?.addEventListener('abort', onAbort, { once: true });
    request.on('error', (error) => settle(new clientErrors.ConnectionError(error.message, noAnswer())));
    request.on('response', (response) => readAnswer(response, settle));
    request.end(call.body);
  });
}

function requestOn(connection: Connection, call: EngineCall): http.ClientRequest {
  const url = connection.url;
  const request = (url.protocol === 'https:' ? https : http).request({
    protocol: url.protocol,
    hostname: url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname,
    port: url.port === '' ? undefined : url.port,
    method: 'POST',
    // a node URL may carry a path the engine sits under
    path: `${url.pathname.replace(/\/$/, '')}${call.path}`,
    headers: {
      ...connection.headers,
      'content-type': call.contentType,
      'content-length': String(Buffer.byteLength(call.body)),
    },
    agent: connection.agent,
  });
  request.setNoDelay(true);
  return request;
}

function readAnswer(
  response: http.IncomingMessage,
  settle: (error: Error | undefined, answer?: Answer) => void,
): void {
  const chunks: Buffer[] = [];
  const cut = () =>
    settle(new clientErrors.ConnectionError('Response aborted while reading the body', noAnswer(response)));
  response.on('data', (chunk: Buffer) => chunks.push(chunk));
  response.on('error', cut);
  response.on('aborted', cut);
  response.on('close', () => {
    if (!response.complete) cut();
  });
  response.on('end', () =>
    settle(undefined, {
      statusCode: response.statusCode ?? 0,
      headers: response.headers,
      text:
        chunks.length === 1 ? (chunks[0] as Buffer).toString('utf8') : Buffer.concat(chunks).toString('utf8'),
    }),
  );
}
