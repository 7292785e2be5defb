/**
 * A search's admission beside its engine call (src/http/limits/credits.ts `beside`, the
 * search route's `admitBeside`), on the real redis-server and the real OpenSearch: the engine
 * is asked while the admission is still out, the answer waits for the admission, a refusal
 * drops the engine's answer and charges nothing, and a user this process knows to be out of
 * credits or over the rate limit is not searched at all (src/limits/admission-hints.ts).
 * The admission is held back by a gate around the ledger's `admit`, so "still out" is a fact
 * of the test, not a race; the apps' engine counts the searches it is asked, as they are sent.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { AdmissionHints } from '../../src/limits/admission-hints.js';
import { createLimits, type Limits } from '../../src/limits/limits.js';
import { metrics } from '../../src/metrics.js';
import { createEngine, type Engine, type EngineCall } from '../../src/opensearch/engine.js';
import type { Services } from '../../src/services.js';
import { startDeadEndpoint } from '../support/dead-endpoint.js';
import { setUpServices } from '../support/env.js';
import { carriesSeededRecord, search, startLimitsTestApp, type TestApp } from '../support/limits-test-app.js';

let services: Services;
let limits: Limits;
let app: TestApp;
let throttledLimits: Limits;
let throttled: TestApp;
/** The same limits, its engine a closed port: every search fails (503). */
let broken: TestApp;
const deadEngine = await startDeadEndpoint();
const closedEngine = createEngine(deadEngine.url);
/** While set, every admission waits for it to resolve before it reaches Redis. */
let gate: Promise<void> | undefined;
let openGate: () => void = () => {};
let admissionsHeld = 0;
/** `_search` and `_msearch` calls the apps sent to the engine. */
let searchesSent = 0;
/** The signal the last of them was sent with (the request's deadline's). */
let lastSignal: AbortSignal | undefined;

/** The engine, counting the searches sent through it. */
function counting(engine: Engine): Engine {
  return new Proxy(engine, {
    get(target, name) {
      const value = Reflect.get(target, name, target);
      if (name !== 'search' && name !== 'msearch')
        return typeof value === 'function' ? value.bind(target) : value;
      return (...args: unknown[]) => {
        searchesSent += 1;
        lastSignal = (args[1] as EngineCall | undefined)?.deadline?.signal;
        return (value as (...call: unknown[]) => unknown).apply(target, args);
      };
    },
  });
}

function holdAdmissions(): void {
  gate = new Promise((resolve) => {
    openGate = () => {
      gate = undefined;
      resolve();
    };
  });
}

function gated(real: Limits): Limits {
  const admit: Limits['ledger']['admit'] = async (request) => {
    if (gate) {
      admissionsHeld += 1;
      await gate;
    }
    return real.ledger.admit(request);
  };
  // the ledger is a class: its other methods keep their own `this`
  const ledger = new Proxy(real.ledger, {
    get(target, name) {
      if (name === 'admit') return admit;
      const value = Reflect.get(target, name, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  return { ...real, ledger };
}

beforeAll(async () => {
  services = await setUpServices('admission-beside');
  const base = { redis: services.redis, keyPrefix: services.config.redisPrefix };
  limits = gated(
    createLimits({ ...base, config: { ratePerSecond: 1_000_000, rateWindowSeconds: 60, searchCost: 3 } }),
  );
  // two searches per minute: the third is refused, whatever the clock's second
  throttledLimits = gated(
    createLimits({ ...base, config: { ratePerSecond: 2, rateWindowSeconds: 60, searchCost: 1 } }),
  );
  const deps = { opensearch: counting(services.opensearch), indexPrefix: services.config.indexPrefix };
  app = await startLimitsTestApp({ ...deps, limits });
  throttled = await startLimitsTestApp({ ...deps, limits: throttledLimits });
  broken = await startLimitsTestApp({
    limits,
    opensearch: counting(closedEngine),
    indexPrefix: services.config.indexPrefix,
    seed: false,
  });
});
afterAll(async () => {
  openGate();
  await Promise.all([app?.close(), throttled?.close(), broken?.close()]);
  await closedEngine.close();
  await deadEngine.close();
  await services?.close();
});

afterEach(() => openGate());

/** corpsearch_searches_beside_admission_total{outcome} now. */
async function besideCount(outcome: 'admitted' | 'dropped'): Promise<number> {
  const { values } = await metrics.searchesBeside.get();
  return values.find((value) => value.labels.outcome === outcome)?.value ?? 0;
}

/**
 * One search sent while admissions are held: whether the engine was asked before its
 * admission could answer, and the response once the admission is let through.
 */
async function searchHeld(
  url: string,
  user: string,
  body?: unknown,
): Promise<{ asked: boolean; res: Response }> {
  holdAdmissions();
  const before = searchesSent;
  const held = admissionsHeld;
  let answered = false;
  const pending = search(url, user, { body }).then((res) => {
    answered = true;
    return res;
  });
  await vi.waitFor(() => expect(admissionsHeld).toBe(held + 1));
  // an engine call made beside is sent as the chain reaches the handler, a few event-loop
  // turns after the admission went out: the time to be sent, not to be answered
  await new Promise((resolve) => setTimeout(resolve, 200));
  const asked = searchesSent > before;
  // nothing is answered while the admission is out
  expect(answered).toBe(false);
  openGate();
  return { asked, res: await pending };
}

describe('a search admitted beside its engine call', () => {
  it('the engine is asked while the admission is out; the answer waits for it and is charged once', async () => {
    await limits.ledger.grant('ample', 10);
    // the first search of a user in this process waits for its admission (nothing known yet)
    expect((await search(app.url, 'ample')).status).toBe(200);
    const admitted = await besideCount('admitted');
    const { asked, res } = await searchHeld(app.url, 'ample');
    expect(asked).toBe(true);
    expect(res.status).toBe(200);
    // answered: its engine calls were not stopped
    expect(lastSignal?.aborted).toBe(false);
    expect(await besideCount('admitted')).toBe(admitted + 1);
    expect(carriesSeededRecord(await res.text())).toBe(true);
    expect(res.headers.get('x-credits-remaining')).toBe('4');
    expect(await limits.ledger.balance('ample')).toBe(4);
  });

  it('credits spent elsewhere meanwhile: 402, the engine answer dropped, nothing charged', async () => {
    await limits.ledger.grant('spender', 6);
    expect((await search(app.url, 'spender')).status).toBe(200);
    // another process spends the rest: this process still believes 3 are left
    const elsewhere = randomUUID();
    expect(await limits.ledger.reserve('spender', 3, elsewhere)).toEqual({ ok: true, balance: 0 });
    await limits.ledger.commit(elsewhere);
    const dropped = await besideCount('dropped');
    const { asked, res: refused } = await searchHeld(app.url, 'spender');
    // it ran beside: the engine was asked, and its answer goes nowhere
    expect(asked).toBe(true);
    expect(refused.status).toBe(402);
    expect(await besideCount('dropped')).toBe(dropped + 1);
    expect(refused.headers.get('x-credits-remaining')).toBe('0');
    const text = await refused.text();
    expect(JSON.parse(text)).toMatchObject({ code: 'insufficient_credits' });
    expect(carriesSeededRecord(text)).toBe(false);
    // the dropped search's engine calls are stopped once the refusal is out
    await vi.waitFor(() => expect(lastSignal?.aborted).toBe(true));
    expect(await limits.ledger.balance('spender')).toBe(0);
    // now known to be out of credits: the next search is refused before the engine is asked
    const next = await searchHeld(app.url, 'spender');
    expect(next.asked).toBe(false);
    expect(next.res.status).toBe(402);
    expect(await besideCount('dropped')).toBe(dropped + 1);
  });

  it('a replayed Idempotency-Key answers the stored response; the beside answer is dropped', async () => {
    await limits.ledger.grant('retrier', 9);
    const headers = { 'Idempotency-Key': randomUUID() };
    const first = await search(app.url, 'retrier', { headers });
    expect(first.status).toBe(200);
    const firstBody = await first.json();
    const dropped = await besideCount('dropped');
    const replay = await search(app.url, 'retrier', { headers });
    expect(replay.status).toBe(200);
    // it ran beside: its engine answer was dropped for the stored one
    expect(await besideCount('dropped')).toBe(dropped + 1);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(await replay.json()).toEqual(firstBody);
    expect(replay.headers.get('x-credits-remaining')).toBe('6');
    expect(await limits.ledger.balance('retrier')).toBe(6);
  });

  it('an engine failure beside the admission is answered after it, and refunded', async () => {
    await limits.ledger.grant('unlucky', 6);
    // the first, through the same app, waits for its admission: it fails and is refunded
    expect((await search(broken.url, 'unlucky')).status).toBe(503);
    // searchHeld sees nothing answered while the admission is out, the engine long failed
    const { asked, res } = await searchHeld(broken.url, 'unlucky');
    expect(asked).toBe(true);
    expect(res.status).toBe(503);
    expect(res.headers.get('x-credits-remaining')).toBe('6');
    expect((await res.json()).message).toMatch(/No credits were charged/);
    expect(await limits.ledger.balance('unlucky')).toBe(6);
  });

  it('with two requests in flight in the process, a third waits for its admission', async () => {
    await limits.ledger.grant('busy', 30);
    expect((await search(app.url, 'busy')).status).toBe(200);
    // what one search beside sends the engine
    const before = searchesSent;
    expect((await searchHeld(app.url, 'busy')).asked).toBe(true);
    const one = searchesSent - before;
    holdAdmissions();
    const sentBefore = searchesSent;
    const held = admissionsHeld;
    const admitted = await besideCount('admitted');
    const pending = [1, 2, 3].map(() => search(app.url, 'busy'));
    await vi.waitFor(() => expect(admissionsHeld).toBe(held + 3));
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(searchesSent - sentBefore).toBeGreaterThanOrEqual(one);
    openGate();
    expect((await Promise.all(pending)).map((res) => res.status)).toEqual([200, 200, 200]);
    // two ran beside, the third waited for its admission
    expect(await besideCount('admitted')).toBe(admitted + 2);
    expect(await limits.ledger.balance('busy')).toBe(30 - 5 * 3);
  });

  it('a cursor page (it opens or closes a point in time) waits for its admission', async () => {
    await limits.ledger.grant('walker', 9);
    expect((await search(app.url, 'walker')).status).toBe(200);
    const first = await searchHeld(app.url, 'walker', { limit: 1, cursor: '*' });
    expect(first.asked).toBe(false);
    expect(first.res.status).toBe(200);
    // a plain page of the same user goes beside
    const plain = await searchHeld(app.url, 'walker');
    expect(plain.asked).toBe(true);
    expect(plain.res.status).toBe(200);
    expect(await limits.ledger.balance('walker')).toBe(0);
  });

  it('over the rate limit: a user known to have no budget left is refused before the engine is asked', async () => {
    await throttledLimits.ledger.grant('eager', 10);
    expect((await search(throttled.url, 'eager')).status).toBe(200);
    // the last of the window's budget: still beside (one left when last seen)
    const admitted = await besideCount('admitted');
    expect((await search(throttled.url, 'eager')).status).toBe(200);
    expect(await besideCount('admitted')).toBe(admitted + 1);
    const { asked, res: refused } = await searchHeld(throttled.url, 'eager');
    expect(refused.status).toBe(429);
    expect(refused.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(asked).toBe(false);
    expect(await throttledLimits.ledger.balance('eager')).toBe(8);
  });
});

describe('what this process remembers of an admission (AdmissionHints)', () => {
  it('room needs a known balance covering the cost, and a rate budget left or its window over', () => {
    const hints = new AdmissionHints();
    expect(hints.takeRoom('u', 1, false)).toBe(false);
    hints.learn('u', { reserve: { ok: true, balance: 7 }, rate: rateLeft(1, 100) });
    expect(hints.takeRoom('u', 8, false, 0)).toBe(false);
    // taken as given: 3 credits and the window's last count
    expect(hints.takeRoom('u', 3, true, 99_000)).toBe(true);
    expect(hints.takeRoom('u', 3, true, 99_500)).toBe(false);
    // a new window: one request, until an admission tells its budget
    expect(hints.takeRoom('u', 3, true, 100_000)).toBe(true);
    expect(hints.takeRoom('u', 1, true, 100_001)).toBe(false);
    // a rate answer alone says nothing of the balance: the one known (1) stays
    hints.learn('u', { rate: rateLeft(4, 200) });
    expect(hints.takeRoom('u', 2, true, 150_000)).toBe(false);
    expect(hints.takeRoom('u', 1, true, 150_000)).toBe(true);
    // a request not rate-counted before has no rate budget known
    hints.learn('v', { balance: 5 });
    expect(hints.takeRoom('v', 5, true)).toBe(false);
    expect(hints.takeRoom('v', 5, false)).toBe(true);
    expect(hints.takeRoom('v', 1, false)).toBe(false);
  });

  it('an answer that may predate admissions still out only lowers what is known', () => {
    const hints = new AdmissionHints();
    hints.begin('u');
    hints.learn('u', { reserve: { ok: true, balance: 10 }, rate: rateLeft(4, 100) });
    // two beside, both admissions out
    for (const _ of [1, 2]) {
      expect(hints.takeRoom('u', 1, true, 0)).toBe(true);
      hints.begin('u');
    }
    // the first answer (sent before the second was counted) says 3 left: 2 are known
    hints.learn('u', { reserve: { ok: true, balance: 9 }, rate: rateLeft(3, 100) });
    expect(hints.takeRoom('u', 1, true, 0)).toBe(true);
    expect(hints.takeRoom('u', 1, true, 0)).toBe(true);
    expect(hints.takeRoom('u', 1, true, 0)).toBe(false);
    // the last answer in is taken as it is
    hints.learn('u', { reserve: { ok: true, balance: 8 }, rate: rateLeft(2, 100) });
    expect(hints.takeRoom('u', 1, true, 0)).toBe(true);
    // a failed admission only ends its count
    hints.begin('u');
    hints.learn('u');
    expect(hints.takeRoom('u', 1, true, 0)).toBe(true);
    expect(hints.takeRoom('u', 1, true, 0)).toBe(false);
    // ...so the next answer, with none other out, is taken as it is
    hints.begin('u');
    hints.learn('u', { reserve: { ok: true, balance: 50 }, rate: rateLeft(9, 100) });
    expect(hints.takeRoom('u', 40, true, 0)).toBe(true);
  });

  it('past its size, forgets a user with no admission out before one with', () => {
    const hints = new AdmissionHints(2);
    hints.learn('a', { balance: 1 });
    hints.begin('a');
    hints.learn('b', { balance: 1 });
    // a third user: 'a' (the oldest) has an admission out, so 'b' is forgotten
    hints.learn('c', { balance: 1 });
    expect(['a', 'b', 'c'].map((user) => hints.takeRoom(user, 1, false))).toEqual([true, false, true]);
  });

  it('forgets the user learnt of longest ago past its size', () => {
    const hints = new AdmissionHints(2);
    hints.learn('a', { balance: 1 });
    hints.learn('b', { balance: 1 });
    hints.learn('a', { balance: 1 });
    hints.learn('c', { balance: 1 });
    expect(['a', 'b', 'c'].map((user) => hints.takeRoom(user, 1, false))).toEqual([true, false, true]);
  });
});

function rateLeft(remaining: number, resetEpochSeconds: number) {
  return { allowed: true, limit: 10, remaining, resetEpochSeconds, retryAfterSeconds: 1 };
}
