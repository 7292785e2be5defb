/**
 * The admission (src/limits/admission.ts): the one Redis script answers, step for step, what
 * the steps one by one answer (the single-process ledger, limiter and Idempotency-Key map run
 * `admitInSteps`). The same scenario goes through both on the real redis-server, and their
 * answers are compared whole.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Admission, AdmitRequest } from '../../src/limits/credit-ledger.js';
import { createLimits, type Limits } from '../../src/limits/limits.js';
import { openCreditLedger } from '../../src/limits/open-credit-ledger.js';
import { testRedis, uniquePrefix } from '../support/env.js';

const prefix = uniquePrefix('admission');
let store: Awaited<ReturnType<typeof testRedis>>;

beforeAll(async () => {
  store = await testRedis(prefix);
});
afterAll(async () => {
  await store?.close();
});

/** What an answer says, without the reset moment (the two clocks' second boundaries differ). */
function seen(admission: Admission) {
  const { rate, ...rest } = admission;
  return { ...rest, rate: rate && { allowed: rate.allowed, remaining: rate.remaining, limit: rate.limit } };
}

/** One user's story: spends its budget and its credits, claims, conflicts, replays. */
async function story(limits: Limits): Promise<unknown[]> {
  const user = 'u';
  await limits.ledger.grant(user, 2);
  const owners: string[] = [];
  const admit = async (request: Partial<AdmitRequest> & { cost: number }) => {
    const requestId = randomUUID();
    owners.push(requestId);
    return seen(await limits.ledger.admit({ userId: user, requestId, ...request }));
  };
  const rate = { limiter: limits.rateLimiter };
  const claim = (key: string, fingerprint: string) => ({ store: limits.idempotency, key, fingerprint });
  const answers: unknown[] = [];
  answers.push(await admit({ rate, cost: 1 })); // counted, reserved
  answers.push(await admit({ rate, claim: claim('k1', 'A'), cost: 1 })); // counted, claimed, reserved
  answers.push(await admit({ rate, claim: claim('k2', 'A'), cost: 1 })); // over the budget: nothing else
  answers.push(await admit({ claim: claim('k1', 'B'), cost: 1 })); // another body: conflict
  answers.push(await admit({ claim: claim('k1', 'A'), cost: 1 })); // still running: in progress
  await limits.idempotency.complete(user, 'k1', owners[1] as string, { status: 200, body: { n: 1 } });
  answers.push(await admit({ claim: claim('k1', 'A'), cost: 1 })); // done: replay, with the balance
  answers.push(await admit({ cost: 1 })); // balance 0: short
  answers.push(await admit({ cost: 0, readBalance: true })); // free: the balance
  answers.push(await admit({ claim: claim('k3', 'A'), cost: 0 })); // free, claimed, no balance asked
  answers.push(await limits.ledger.balance(user));
  return answers;
}

const config = { ratePerSecond: 2, rateWindowSeconds: 60 };

describe('one script answers as the steps one by one', () => {
  it('the same story through the Redis script and through the single-process steps', async () => {
    const inRedis = await story(createLimits({ redis: store.redis, keyPrefix: prefix, config }));
    const local = await story(createLimits({ redis: undefined, keyPrefix: prefix, config }));
    expect(inRedis).toEqual(local);
    // and the story is the one told above, not two equal mistakes
    expect(inRedis).toEqual([
      { rate: { allowed: true, remaining: 1, limit: 2 }, reserve: { ok: true, balance: 1 } },
      {
        rate: { allowed: true, remaining: 0, limit: 2 },
        claim: { kind: 'claimed' },
        reserve: { ok: true, balance: 0 },
      },
      { rate: { allowed: false, remaining: 0, limit: 2 } },
      { claim: { kind: 'conflict' } },
      { claim: { kind: 'in-progress' } },
      { claim: { kind: 'replay', response: { status: 200, body: { n: 1 } } }, balance: 0 },
      { reserve: { ok: false, balance: 0 } },
      { balance: 0 },
      { claim: { kind: 'claimed' } },
      0,
    ]);
  });

  it("the keys CLI's ledger admits through the same script", async () => {
    const { ledger, close } = openCreditLedger({
      redisUrl: inject('redisUrl'),
      redisPrefix: `${prefix}cli:`,
    });
    try {
      await ledger.grant('cli', 1);
      const admitted = await ledger.admit({ userId: 'cli', requestId: randomUUID(), cost: 1 });
      expect(admitted).toEqual({ reserve: { ok: true, balance: 0 } });
    } finally {
      await close();
    }
  });
});
