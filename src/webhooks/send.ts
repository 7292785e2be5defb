/**
 * One delivery attempt: a signed POST of the event's JSON to the webhook's URL through undici,
 * whose connections resolve names with the address guard (./address.ts), so the address
 * checked is the address connected to. Bounded: WEBHOOK_TIMEOUT_MS for the whole attempt
 * (connect, headers, body), redirects not followed (a 3xx is a failure), and at most
 * `maxResponseBytes` of the receiver's answer read (the rest is dropped; the status decides).
 * A receiver's connection is kept for its next delivery (keep-alive): opening one per delivery
 * was about a tenth of the worker's time at 10,000 watched searches (docs/bench.md). A kept
 * connection the receiver closed meanwhile fails before any answer; such a delivery is sent
 * once more, at once, on another connection, within the same timeout (the receiver may then see
 * the event twice, with one id, as at-least-once delivery allows).
 * What it answers is the outcome in the project's own words: no error text of a library or
 * of the receiver goes into the delivery log.
 */
import { Agent, type Dispatcher, request } from 'undici';
import { type AddressPolicy, checkUrl, guardedLookup } from './address.js';

export interface SendOptions {
  policy: AddressPolicy;
  timeoutMs: number;
  maxResponseBytes: number;
}

export interface SendResult {
  ok: boolean;
  /** the receiver's status code; null when it gave none */
  statusCode: number | null;
  /** why it failed, when it did: one of a few fixed reasons */
  error: string | null;
  durationMs: number;
}

/** How long a receiver's connection is kept idle for its next delivery. */
const keepAliveMs = 4_000;

export class WebhookSender {
  private readonly agent: Agent;

  constructor(private readonly options: SendOptions) {
    this.agent = new Agent({
      connect: { lookup: guardedLookup(options.policy) as never, timeout: options.timeoutMs },
      headersTimeout: options.timeoutMs,
      bodyTimeout: options.timeoutMs,
      // kept this long idle at most (a receiver's Keep-Alive hint may shorten it, not lengthen it)
      keepAliveTimeout: keepAliveMs,
      keepAliveMaxTimeout: keepAliveMs,
    });
  }

  async send(url: string, body: string, headers: Record<string, string>): Promise<SendResult> {
    const started = performance.now();
    const done = (statusCode: number | null, error: string | null): SendResult => ({
      ok: error === null && statusCode !== null && statusCode >= 200 && statusCode < 300,
      statusCode,
      error,
      durationMs: Math.round(performance.now() - started),
    });
    // a literal address is never looked up: it is checked here (a name, when connecting)
    const refused = checkUrl(url, this.options.policy);
    if (refused) return done(null, 'refused address');
    const signal = AbortSignal.timeout(this.options.timeoutMs);
    try {
      let response: Dispatcher.ResponseData;
      try {
        response = await this.post(url, body, headers, signal);
      } catch (error) {
        // no answer at all on a kept connection the receiver closed meanwhile: once more, on
        // another (an answer that breaks off in its body fails the attempt, as before: the
        // receiver got the event, and the retry schedule sends it again)
        if (signal.aborted || reasonOf(error) !== 'connection reset') throw error;
        response = await this.post(url, body, headers, signal);
      }
      const status = response.statusCode;
      await this.readAnswer(response);
      return done(status, status >= 200 && status < 300 ? null : `answered ${status}`);
    } catch (error) {
      return done(null, reasonOf(error));
    }
  }

  /** One POST, to its status and headers. */
  private post(
    url: string,
    body: string,
    headers: Record<string, string>,
    signal: AbortSignal,
  ): Promise<Dispatcher.ResponseData> {
    return request(url, {
      method: 'POST',
      body,
      headers: { 'content-type': 'application/json', 'user-agent': 'corpsearch-webhooks/1', ...headers },
      dispatcher: this.agent,
      signal,
    });
  }

  /** At most `maxResponseBytes` of the answer, read and dropped. */
  private async readAnswer(response: Dispatcher.ResponseData): Promise<void> {
    let read = 0;
    for await (const chunk of response.body) {
      read += (chunk as Buffer).length;
      if (read > this.options.maxResponseBytes) {
        response.body.destroy();
        break;
      }
    }
  }

  async close(): Promise<void> {
    await this.agent.close();
  }
}

/** A failed attempt's reason, from the error's code only. */
function reasonOf(error: unknown): string {
  const found = error as { code?: unknown; name?: unknown; cause?: { code?: unknown } } | undefined;
  const any = [found?.code, found?.cause?.code, found?.name].filter(
    (value): value is string => typeof value === 'string',
  );
  if (any.includes('EWEBHOOKADDRESS')) return 'refused address';
  if (any.some((c) => c === 'TimeoutError' || c === 'AbortError' || c.includes('TIMEOUT'))) return 'timeout';
  if (any.includes('ECONNREFUSED')) return 'connection refused';
  if (any.includes('ENOTFOUND') || any.includes('EAI_AGAIN')) return 'name not found';
  // EPIPE: the request written to a connection the receiver had just closed
  if (any.includes('ECONNRESET') || any.includes('UND_ERR_SOCKET') || any.includes('EPIPE'))
    return 'connection reset';
  if (any.some((c) => c.startsWith('ERR_TLS') || c.includes('CERT'))) return 'tls error';
  return 'network error';
}
