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
import { Agent, type Dispatcher } from 'undici';
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

/** Where a URL is sent, checked once (the policy is the sender's for its life). */
interface Target {
  refused: boolean;
  origin: string;
  path: string;
}

/** URLs whose check is kept; past it the kept checks are dropped and made again. */
const targetsKept = 10_000;

export class WebhookSender {
  private readonly agent: Agent;
  private readonly targets = new Map<string, Target>();

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

  send(url: string, body: string, headers: Record<string, string>): Promise<SendResult> {
    const started = performance.now();
    const target = this.targetOf(url);
    // a literal address is never looked up: it is checked here (a name, when connecting)
    if (target.refused) return Promise.resolve(resultOf(started, null, 'refused address'));
    return new Promise<SendResult>((resolve) => {
      const request: Dispatcher.DispatchOptions = {
        origin: target.origin,
        path: target.path,
        method: 'POST',
        body,
        headers: { 'content-type': 'application/json', 'user-agent': 'corpsearch-webhooks/1', ...headers },
      };
      new Attempt(this.agent, request, this.options, started, resolve).start();
    });
  }

  private targetOf(url: string): Target {
    const known = this.targets.get(url);
    if (known) return known;
    const refused = checkUrl(url, this.options.policy) !== null;
    const parsed = refused ? null : new URL(url);
    const target = {
      refused,
      origin: parsed?.origin ?? '',
      path: parsed ? `${parsed.pathname}${parsed.search}` : '',
    };
    if (this.targets.size >= targetsKept) this.targets.clear();
    this.targets.set(url, target);
    return target;
  }

  async close(): Promise<void> {
    await this.agent.close();
  }
}

function resultOf(started: number, statusCode: number | null, error: string | null): SendResult {
  return {
    ok: error === null && statusCode !== null && statusCode >= 200 && statusCode < 300,
    statusCode,
    error,
    durationMs: Math.round(performance.now() - started),
  };
}

/** The outcome of an answer with this status. */
function answered(statusCode: number | null): string | null {
  return statusCode !== null && statusCode >= 200 && statusCode < 300 ? null : `answered ${statusCode}`;
}

const timedOut = Object.assign(new Error('the attempt timed out'), { name: 'TimeoutError' });
const tooLong = new Error('the answer is longer than is read');

/**
 * One attempt as undici's handler of the request: the status, the answer's bytes counted up
 * to the cap, one timer for the whole attempt, and the second sending of a request a kept
 * connection dropped before any answer. No response stream and no abort signal: the sending
 * costs about a third of the CPU per delivery that `request` with them did (docs/bench.md,
 * "Each delivery as undici's dispatch handler").
 */
class Attempt implements Dispatcher.DispatchHandler {
  private status: number | null = null;
  private read = 0;
  private controller: Dispatcher.DispatchController | null = null;
  private settled = false;
  private sentAgain = false;
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly agent: Agent,
    private readonly request: Dispatcher.DispatchOptions,
    private readonly options: SendOptions,
    private readonly started: number,
    private readonly resolve: (result: SendResult) => void,
  ) {
    this.timer = setTimeout(onTimeout, options.timeoutMs, this);
  }

  start(): void {
    if (this.settled) return;
    this.controller = null;
    this.status = null;
    this.read = 0;
    this.agent.dispatch(this.request, this);
  }

  timeout(): void {
    this.settle(null, 'timeout');
    this.controller?.abort(timedOut);
  }

  private settle(statusCode: number | null, error: string | null): void {
    if (this.settled) return;
    this.settled = true;
    clearTimeout(this.timer);
    this.resolve(resultOf(this.started, statusCode, error));
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.controller = controller;
    // timed out while queued for a connection
    if (this.settled) controller.abort(timedOut);
  }

  onResponseStart(_controller: Dispatcher.DispatchController, statusCode: number): void {
    this.status = statusCode;
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    this.read += chunk.length;
    if (this.read <= this.options.maxResponseBytes) return;
    // the rest is dropped: the status decides
    this.settle(this.status, answered(this.status));
    controller.abort(tooLong);
  }

  onResponseEnd(): void {
    this.settle(this.status, answered(this.status));
  }

  onResponseError(_controller: Dispatcher.DispatchController, error: Error): void {
    if (this.settled) return;
    const reason = reasonOf(error);
    // no answer at all on a kept connection the receiver closed meanwhile: once more, on
    // another, within the same timeout (an answer that breaks off in its body fails the
    // attempt: the receiver got the event, and the retry schedule sends it again)
    if (reason === 'connection reset' && this.status === null && !this.sentAgain) {
      this.sentAgain = true;
      // once undici is done with the dropped connection
      setImmediate(sendAgain, this);
      return;
    }
    this.settle(null, reason);
  }
}

function onTimeout(attempt: Attempt): void {
  attempt.timeout();
}

function sendAgain(attempt: Attempt): void {
  attempt.start();
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
