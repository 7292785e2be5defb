/**
 * Cursors are opaque and tamper-proof (AES-256-GCM, src/search/paging/cursor.ts), through the
 * real app on the real engine: decoded as an attacker would, a cursor shows no user id, index
 * name or UUID, node id, point-in-time id or sort value; one changed byte, a cut, another
 * user or a key no longer configured is the 400 on `cursor`; after a key rotation a cursor of
 * the old key still works while that key is kept. And CURSOR_KEYS is read and masked.
 */
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey, keyStoreFor } from '../../src/auth/key-admin.js';
import { ConfigError, defaultConfig, describeConfig, loadConfig } from '../../src/config.js';
import { createApp } from '../../src/http/app.js';
import { cursorKeys, decodeCursor, readCursor } from '../../src/search/paging/cursor.js';
import { createPaging, type Services } from '../../src/services.js';
import { corporate, indexFixture } from '../fixtures/search/docs.js';
import { setUpServices } from '../support/env.js';

const secretA = 'a-first-cursor-secret-of-32-characters-or-more';
const secretB = 'b-second-cursor-secret-of-32-characters-or-more';

let services: Services;
const users: Record<string, string> = {};

const companies = Array.from({ length: 7 }, (_, i) =>
  corporate({ name: `カーソル商事${i}`, prefectureId: 13, employeeCount: 1000 + i }),
);
const body = { prefectureIdOr: [13], limit: 2, sort: { field: 'employeeCount', order: 'asc' } };

/** The app with these cursor keys (everything else shared). */
function appWith(keys: Array<{ id: number; secret: string }>) {
  const config = { ...services.config, cursorKeys: keys };
  return createApp({ ...services, config, paging: createPaging(config, services.redis) });
}

async function page(app: ReturnType<typeof createApp>, user: string, cursor: string) {
  return request(app)
    .post('/rest/v1/corporates/search')
    .set('X-API-Key', users[user] as string)
    .send({ ...body, cursor });
}

function expectCursorRefused(res: request.Response, reason: string | RegExp) {
  expect(res.status).toBe(400);
  expect(res.body.code).toBe('invalid_request');
  expect(res.body.errors).toEqual([{ field: 'cursor', reason: expect.stringMatching(reason) }]);
}

beforeAll(async () => {
  // a page per request in quick succession: the rate limit is not what is tested here
  services = await setUpServices('cursors', {
    cursorKeys: [{ id: 1, secret: secretA }],
    limits: { ...defaultConfig().limits, ratePerSecond: 10_000 },
  });
  for (const user of ['alice', 'mallory']) {
    const userId = `${user}-${Math.random().toString(36).slice(2, 8)}`;
    ({ key: users[user] } = await createApiKey(keyStoreFor(services.redis, services.config.redisPrefix), {
      userId,
    }));
    users[`${user}Id`] = userId;
    await services.limits.ledger.grant(userId, 100);
  }
  await indexFixture(services.opensearch, services.config.indexPrefix, { corporates: companies });
});
afterAll(async () => {
  await services?.close();
});

describe('an attacker reading a cursor', () => {
  it('finds no user id, index name or UUID, node id, point-in-time id or sort value', async () => {
    const app = appWith([{ id: 1, secret: secretA }]);
    const first = await page(app, 'alice', '*');
    expect(first.status).toBe(200);
    const token = first.body.nextCursor as string;
    expect(token).toEqual(expect.any(String));
    // what the server put in it (read with the server's key): the values that must not show
    const state = readCursor(cursorKeys([{ id: 1, secret: secretA }]), token);
    if (!state) throw new Error('the server cannot read its own cursor');
    expect(state.u).toBe(users.aliceId);
    const concrete = Object.keys(
      (await services.opensearch.indices.get({ index: `${services.config.indexPrefix}corporates` })).body,
    )[0] as string;
    const uuid = (await services.opensearch.indices.getSettings({ index: concrete })).body[concrete]?.settings
      ?.index?.uuid as string;
    const nodeIds = Object.keys((await services.opensearch.nodes.info()).body.nodes);
    const secrets = [
      users.aliceId as string,
      concrete,
      `${services.config.indexPrefix}corporates`,
      uuid,
      ...nodeIds,
      ...state.a.map(String),
      ...companies.map((company) => company.corporateNumber as string),
    ];
    expect(state.p.length).toBeGreaterThan(40);
    for (let i = 0; i + 20 <= state.p.length; i += 1) secrets.push(state.p.slice(i, i + 20));

    // every reading an attacker would try: the token itself, base64url and base64 of it and
    // of each dot-separated part, as UTF-8 and as Latin-1, and the PIT id decoded the same way
    const decodings = [token];
    const hexDecodings: string[] = [];
    for (const part of [token, ...token.split('.')]) {
      for (const alphabet of ['base64url', 'base64'] as const) {
        const bytes = Buffer.from(part, alphabet);
        decodings.push(bytes.toString('utf8'), bytes.toString('latin1'));
        hexDecodings.push(bytes.toString('hex'));
      }
    }
    const text = decodings.join('\n');
    const hexText = hexDecodings.join('\n');
    for (const secret of secrets) {
      expect(text, secret).not.toContain(secret);
      // the hex of hundreds of random bytes holds any short run of digits now and then (a sort
      // value such as 1001 was found there by chance): it is read for the long, hex-like
      // secrets only (the index UUID, node ids, PIT id runs, corporate numbers)
      if (secret.length >= 12) expect(hexText, secret).not.toContain(secret.toLowerCase());
    }
    // the PIT id itself, decoded, names the index: it is what the encryption hides
    expect(Buffer.from(state.p, 'base64').toString('latin1')).toContain(concrete);
  });
});

describe('a cursor that is not as issued is the 400 on cursor', () => {
  it('any one byte changed, cut short, or grown', async () => {
    const app = appWith([{ id: 1, secret: secretA }]);
    const token = (await page(app, 'alice', '*')).body.nextCursor as string;
    expect((await page(app, 'alice', token)).status).toBe(200);
    const bytes = Buffer.from(token, 'base64url');
    const keys = cursorKeys([{ id: 1, secret: secretA }]);
    const expectFor = { user: users.aliceId as string, query: 'x', nowSeconds: 0 };
    // every byte, at the decoder: version, key id, IV, ciphertext, tag
    for (let i = 0; i < bytes.length; i += 1) {
      const changed = Buffer.from(bytes);
      changed[i] = (changed[i] as number) ^ 0x01;
      expect(() => decodeCursor(keys, changed.toString('base64url'), expectFor), `byte ${i}`).toThrow(
        expect.objectContaining({ status: 400 }),
      );
    }
    // and through the app: one byte of the ciphertext, the last, a cut, an extra byte
    const middle = Buffer.from(bytes);
    middle[20] = (middle[20] as number) ^ 0x80;
    const last = Buffer.from(bytes);
    last[last.length - 1] = (last[last.length - 1] as number) ^ 0x01;
    for (const tampered of [
      middle.toString('base64url'),
      last.toString('base64url'),
      bytes.subarray(0, bytes.length - 1).toString('base64url'),
      token.slice(0, 30),
      Buffer.concat([bytes, Buffer.from([0])]).toString('base64url'),
      `${token}.x`,
    ]) {
      expectCursorRefused(await page(app, 'alice', tampered), /is not a cursor this API issued/);
    }
  });

  it('from another user', async () => {
    const app = appWith([{ id: 1, secret: secretA }]);
    const token = (await page(app, 'alice', '*')).body.nextCursor as string;
    expectCursorRefused(await page(app, 'mallory', token), /issued to another user/);
  });
});

describe('key rotation', () => {
  it('a cursor of the old key works while it is kept, and is refused once it is dropped', async () => {
    const before = appWith([{ id: 1, secret: secretA }]);
    const during = appWith([
      { id: 2, secret: secretB },
      { id: 1, secret: secretA },
    ]);
    const after = appWith([{ id: 2, secret: secretB }]);
    const old = (await page(before, 'alice', '*')).body.nextCursor as string;
    expect(Buffer.from(old, 'base64url')[1]).toBe(1);

    const next = await page(during, 'alice', old);
    expect(next.status).toBe(200);
    expect(next.body.results.map((r: { corporateNumber: string }) => r.corporateNumber)).toEqual(
      companies.slice(2, 4).map((company) => company.corporateNumber),
    );
    const fresh = next.body.nextCursor as string;
    expect(Buffer.from(fresh, 'base64url')[1]).toBe(2);

    expectCursorRefused(await page(after, 'alice', old), /key no longer configured/);
    const last = await page(after, 'alice', fresh);
    expect(last.status).toBe(200);
    expect(last.body.results.map((r: { corporateNumber: string }) => r.corporateNumber)).toEqual(
      companies.slice(4, 6).map((company) => company.corporateNumber),
    );
  });

  it('a process without keys makes cursors no other process reads', async () => {
    const token = (await page(appWith([]), 'alice', '*')).body.nextCursor as string;
    expectCursorRefused(await page(appWith([]), 'alice', token), /is not a cursor this API issued/);
  });
});

describe('CURSOR_KEYS', () => {
  it('reads <id>:<secret> entries in order, and CURSOR_SECRET as key 0', () => {
    expect(loadConfig({ CURSOR_KEYS: `2:${secretB},1:${secretA}` }).cursorKeys).toEqual([
      { id: 2, secret: secretB },
      { id: 1, secret: secretA },
    ]);
    expect(loadConfig({ CURSOR_SECRET: secretA }).cursorKeys).toEqual([{ id: 0, secret: secretA }]);
    expect(loadConfig({}).cursorKeys).toBeUndefined();
  });

  it.each([
    [{ CURSOR_KEYS: 'short-secret' }, /entry 1 must be <id>:<secret>/],
    [{ CURSOR_KEYS: `256:${secretA}` }, /entry 1 must be <id>:<secret> with an id from 0 to 255/],
    [{ CURSOR_KEYS: `1:${secretA},2:too-short` }, /key 2: the secret must be at least 32 characters/],
    [{ CURSOR_KEYS: `1:${secretA},1:${secretB}` }, /key id 1 is given twice/],
    [{ CURSOR_KEYS: `1:${secretA}`, CURSOR_SECRET: secretB }, /both set/],
  ])('refuses %o naming the problem, never the secret', (env, message) => {
    let error: unknown;
    try {
      loadConfig(env);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toMatch(message);
    expect((error as Error).message).not.toContain('cursor-secret');
    expect((error as Error).message).not.toContain('too-short');
  });

  it('--print-config shows the key ids, never the secrets', () => {
    const shown = describeConfig(loadConfig({ CURSOR_KEYS: `2:${secretB},1:${secretA}` }));
    expect(shown).not.toContain('cursor-secret');
    expect(JSON.parse(shown).cursorKeys).toEqual([
      { id: 2, secret: '***' },
      { id: 1, secret: '***' },
    ]);
  });
});
