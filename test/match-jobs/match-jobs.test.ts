/**
 * /rest/v1/corporates/match-jobs through the real app, a worker in this process, the real
 * engine and Redis: uploads (CSV UTF-8 with a BOM, Shift_JIS, JSONL), progress, results in
 * input order with the uploaded columns kept, rejected rows, credits reserved and settled per
 * certain match, maxCredits and a short balance stopping a job (and resuming it), another
 * user's job a 404, Idempotency-Key replays, and the 400s.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import iconv from 'iconv-lite';
import type { Redis } from 'ioredis';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MatchJobStore } from '../../src/match-jobs/job-store.js';
import { matchColumns } from '../../src/match-jobs/results.js';
import { type MatchJobWorker, sweepEnded } from '../../src/match-jobs/worker.js';
import { projectRoot } from '../../src/project-root.js';
import { parseCsv } from '../../src/text/csv.js';
import { runToEnd } from '../support/child-runs.js';
import {
  createJob,
  expectedOf,
  type JobsApp,
  listCsv,
  listRow,
  maruka,
  matchedIn,
  sakuraTokyo,
  startJobsApp,
  startTestWorker,
  waitForJob,
} from '../support/match-jobs.js';

let app: JobsApp;
let worker: MatchJobWorker;

beforeAll(async () => {
  app = await startJobsApp('match-jobs');
  const { services } = app;
  worker = startTestWorker(services, app.dir, { chunkRecords: 100 });
  for (const user of ['alice', 'bob', 'idem']) await services.limits.ledger.grant(user, 100_000);
});
afterAll(async () => {
  await worker?.close();
  await app?.close();
});

async function results(user: string, id: string, opts: { format?: string; accept?: string } = {}) {
  const res = await fetch(
    `${app.url}/corporates/match-jobs/${id}/results${opts.format ? `?format=${opts.format}` : ''}`,
    { headers: await app.headers(user, opts.accept ? { accept: opts.accept } : {}) },
  );
  return { status: res.status, type: res.headers.get('content-type') ?? '', text: await res.text() };
}

// its tests follow one job from upload to results, in order
describe('a CSV list (UTF-8 with a BOM)', { shuffle: false }, () => {
  const rows = 1200;
  let id: string;
  let before: number;
  let requestId: string;

  it('is taken (202) with its rows counted and refused rows known at once', async () => {
    before = await app.services.limits.ledger.balance('alice');
    const created = await createJob(app, 'alice', listCsv(rows, { bom: true }));
    expect(created.status).toBe(202);
    id = created.body.id;
    requestId = created.headers.get('x-request-id') ?? '';
    expect(created.headers.get('location')).toBe(`/rest/v1/corporates/match-jobs/${id}`);
    expect(created.body.columns).toEqual(['会社名', '都道府県', 'メモ']);
    expect(created.body.rows).toMatchObject({ total: rows, rejected: rows / 6 });
  });

  it('is run to its end: every row done, the certain matches counted and charged once', async () => {
    const job = await waitForJob(app, 'alice', id);
    expect(job.status).toBe('completed');
    expect(job.rows).toEqual({
      total: rows,
      done: rows,
      rejected: rows / 6,
      matched: matchedIn(rows),
      unmatched: rows - matchedIn(rows) - rows / 6,
    });
    expect(job.creditsCharged).toBe(matchedIn(rows));
    expect(await app.services.limits.ledger.balance('alice')).toBe(before - matchedIn(rows));
    // every reservation settled: nothing left open for the sweep
    expect((await app.services.limits.ledger.account('alice')).open.reservations).toBe(0);
    // its charges in the ledger name the job, the key and the request that created it
    const charges = (await app.services.limits.ledger.tail(100_000)).flatMap(({ entry }) =>
      entry?.kind === 'charge' && entry.matchJobId === id ? [entry] : [],
    );
    expect(charges.reduce((sum, charge) => sum - charge.credits, 0)).toBe(matchedIn(rows));
    expect(requestId).not.toBe('');
    for (const charge of charges)
      expect(charge).toMatchObject({
        userId: 'alice',
        operation: 'POST /corporates/match-jobs',
        keyId: expect.stringMatching(/^\S+$/),
        requestId,
      });
    expect(new Set(charges.map((charge) => charge.keyId)).size).toBe(1);
  });

  it('answers its rows in input order, the uploaded columns kept and the match columns added', async () => {
    const csv = await results('alice', id);
    expect(csv.status).toBe(200);
    expect(csv.type).toContain('text/csv');
    const [header, ...body] = parseCsv(csv.text).map((record) => record.fields);
    expect(header).toEqual(['会社名', '都道府県', 'メモ', ...matchColumns]);
    expect(body).toHaveLength(rows);
    const at = (name: string) => (header as string[]).indexOf(name);
    body.forEach((fields, i) => {
      const want = expectedOf(i);
      expect(fields[at('rowNumber')]).toBe(String(i + 1));
      expect(fields[at('メモ')]).toBe(`${listRow(i).memo}, kept`);
      expect(fields[at('matchStatus')]).toBe(want.status);
      expect(fields[at('matchCorporateNumber')]).toBe(want.corporateNumber ?? '');
    });
    // a refused row: its number and the reason, as POST /corporates/match would refuse it
    expect(body[5]?.[at('rejectReason')]).toBe('name: is required');
    expect(body[0]?.[at('matchName')]).toBe('マルカ物流株式会社');
    expect(Number(body[0]?.[at('matchScore')])).toBeGreaterThan(0);
    expect(body[2]?.[at('candidateCount')]).toBe('2');
  });

  it('is in the list of its user only, and another user gets a 404 for it', async () => {
    const mine = await fetch(`${app.url}/corporates/match-jobs`, { headers: await app.headers('alice') });
    expect(((await mine.json()) as { jobs: Array<{ id: string }> }).jobs.map((job) => job.id)).toContain(id);
    const theirs = await fetch(`${app.url}/corporates/match-jobs`, { headers: await app.headers('bob') });
    expect(
      ((await theirs.json()) as { jobs: Array<{ id: string }> }).jobs.map((job) => job.id),
    ).not.toContain(id);
    for (const [method, suffix] of [
      ['GET', ''],
      ['GET', '/results'],
      ['DELETE', ''],
      ['POST', '/resume'],
    ] as const) {
      const res = await fetch(`${app.url}/corporates/match-jobs/${id}${suffix}`, {
        method,
        headers: await app.headers('bob'),
      });
      expect(res.status, `${method} ${suffix}`).toBe(404);
      expect(((await res.json()) as { code: string }).code).toBe('not_found');
    }
    // not cancelled by bob's DELETE
    expect((await waitForJob(app, 'alice', id)).status).toBe('completed');
  });
});

describe('a Shift_JIS CSV and a JSONL list', () => {
  it('reads Shift_JIS by detection and by parameter alike, results as JSONL on Accept', async () => {
    const bytes = iconv.encode(listCsv(60), 'cp932');
    for (const query of [undefined, 'encoding=shift_jis']) {
      const created = await createJob(app, 'alice', bytes, query ? { query } : {});
      expect(created.status).toBe(202);
      const job = await waitForJob(app, 'alice', created.body.id);
      expect(job.rows.matched).toBe(matchedIn(60));
      const jsonl = await results('alice', job.id, { accept: 'application/jsonl' });
      expect(jsonl.type).toContain('application/jsonl');
      const lines = jsonl.text
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line));
      expect(lines).toHaveLength(60);
      expect(lines[0]).toMatchObject({
        row: 1,
        input: { 会社名: '㈱マルカ物流', メモ: 'memo-1, kept' },
        status: 'matched',
        match: { corporateNumber: maruka, name: 'マルカ物流株式会社' },
      });
      // an unsure row keeps every candidate, each with where it is and why (the console picks among them)
      const unsure = lines[2] as { candidateCount: number; firstCandidate: unknown; candidates: unknown[] };
      expect(unsure.candidateCount).toBe(2);
      expect(unsure.candidates).toHaveLength(2);
      expect(unsure.firstCandidate).toEqual(unsure.candidates[0]);
      expect(unsure.candidates.map((c) => (c as { corporateNumber: string }).corporateNumber)).toContain(
        sakuraTokyo,
      );
      for (const candidate of unsure.candidates)
        expect(candidate).toMatchObject({
          name: expect.stringContaining('サクラ精機'),
          prefectureId: expect.any(Number),
          matchedOn: expect.arrayContaining(['name']),
        });
    }
  });

  it('reads JSONL records, refusing bad lines with their line number and reason', async () => {
    const lines = [
      JSON.stringify({ name: '㈱マルカ物流' }),
      'not json',
      JSON.stringify({ name: 'サクラ精機', prefectureId: 13 }),
      '',
      JSON.stringify({ name: 'x', prefectureId: 99 }),
      JSON.stringify({ nam: 'typo' }),
    ];
    const created = await createJob(app, 'alice', `${lines.join('\n')}\n`, {
      contentType: 'application/x-ndjson',
    });
    expect(created.status).toBe(202);
    expect(created.body.rows).toMatchObject({ total: 5, rejected: 3 });
    const job = await waitForJob(app, 'alice', created.body.id);
    expect(job.rows).toMatchObject({ done: 5, matched: 2 });
    const out = (await results('alice', job.id)).text
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { row: number; status: string; reason?: string });
    expect(out.map((row) => [row.row, row.status])).toEqual([
      [1, 'matched'],
      [2, 'rejected'],
      [3, 'matched'],
      [5, 'rejected'],
      [6, 'rejected'],
    ]);
    expect(out[1]?.reason).toBe('line: must be a JSON object (a match record)');
    expect(out[3]?.reason).toMatch(/^prefectureId: /);
    expect(out[4]?.reason).toContain('name: is required');
    expect(out[4]?.reason).toContain('nam: is not a field of this request');
    // CSV of a JSONL upload: the record's fields are its columns
    const csv = parseCsv((await results('alice', job.id, { format: 'csv' })).text);
    expect(csv[0]?.fields.slice(0, 6)).toEqual([
      'name',
      'prefectureId',
      'address',
      'phoneNumber',
      'websiteUrl',
      'corporateNumber',
    ]);
  });
});

describe('credits', () => {
  it('maxCredits stops the job at the match it cannot pay, the rest unanswered; resume goes on', async () => {
    const rows = 300;
    const before = await app.services.limits.ledger.balance('bob');
    const created = await createJob(app, 'bob', listCsv(rows), { query: 'maxCredits=25' });
    const job = await waitForJob(app, 'bob', created.body.id);
    expect(job).toMatchObject({ status: 'stopped', stopReason: 'maxCredits', creditsCharged: 25 });
    expect(job.rows.matched).toBe(25);
    expect(await app.services.limits.ledger.balance('bob')).toBe(before - 25);
    // the 25th match is row 73 (two per six rows): the job stopped before the 26th, row 74
    expect(job.rows.done).toBe(73);
    const csv = parseCsv((await results('bob', job.id)).text).map((record) => record.fields);
    const status = (csv[0] as string[]).indexOf('matchStatus');
    expect(csv).toHaveLength(rows + 1);
    expect(csv.slice(1, 74).every((fields) => fields[status] !== 'unanswered')).toBe(true);
    expect(csv.slice(74).every((fields) => fields[status] === 'unanswered')).toBe(true);

    const resumed = await fetch(`${app.url}/corporates/match-jobs/${job.id}/resume?maxCredits=1000`, {
      method: 'POST',
      headers: await app.headers('bob'),
    });
    expect(resumed.status).toBe(202);
    const done = await waitForJob(app, 'bob', job.id);
    expect(done).toMatchObject({ status: 'completed', creditsCharged: matchedIn(rows) });
    expect(done.rows.done).toBe(rows);
    expect(await app.services.limits.ledger.balance('bob')).toBe(before - matchedIn(rows));
  });

  it('a balance that runs out stops the job (insufficientCredits); a top-up and resume finish it', async () => {
    await app.services.limits.ledger.grant('carol', 30);
    const rows = 240;
    const created = await createJob(app, 'carol', listCsv(rows));
    const job = await waitForJob(app, 'carol', created.body.id);
    expect(job).toMatchObject({ status: 'stopped', stopReason: 'insufficientCredits', creditsCharged: 30 });
    expect(await app.services.limits.ledger.balance('carol')).toBe(0);
    await app.services.limits.ledger.grant('carol', 1000);
    const resumed = await fetch(`${app.url}/corporates/match-jobs/${job.id}/resume`, {
      method: 'POST',
      headers: await app.headers('carol'),
    });
    expect(resumed.status).toBe(202);
    const done = await waitForJob(app, 'carol', job.id);
    expect(done).toMatchObject({ status: 'completed', creditsCharged: matchedIn(rows) });
    expect(await app.services.limits.ledger.balance('carol')).toBe(1030 - matchedIn(rows));
  });
});

describe('Idempotency-Key', () => {
  it('a retried upload answers the job it created (not a second job); other bytes with the key: 422', async () => {
    const body = listCsv(12);
    const first = await createJob(app, 'idem', body, { headers: { 'idempotency-key': 'upload-1' } });
    expect(first.status).toBe(202);
    const folders = readdirSync(app.dir).length;
    const again = await createJob(app, 'idem', body, { headers: { 'idempotency-key': 'upload-1' } });
    expect(again.status).toBe(202);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body.id).toBe(first.body.id);
    const list = await fetch(`${app.url}/corporates/match-jobs`, { headers: await app.headers('idem') });
    expect(((await list.json()) as { jobs: unknown[] }).jobs).toHaveLength(1);
    // the replay left no folder behind
    expect(readdirSync(app.dir)).toHaveLength(folders);
    const other = await createJob(app, 'idem', listCsv(13), { headers: { 'idempotency-key': 'upload-1' } });
    expect(other.status).toBe(422);
    await waitForJob(app, 'idem', first.body.id);
  });
});

describe('bad uploads are 400s naming the field and the reason', () => {
  it.each([
    ['no name column', 'foo,bar\n1,2\n', {}, 'header', /company name column/],
    ['two name columns', 'name,会社名\na,b\n', {}, 'header', /both give name/],
    ['a bad format', 'name\na\n', { query: 'format=xlsx' }, 'format', /csv or jsonl/],
    ['an unknown parameter', 'name\na\n', { query: 'limit=3' }, 'limit', /not a parameter/],
    ['no type', 'name\na\n', { contentType: 'application/octet-stream' }, 'Content-Type', /text\/csv/],
    ['a bad candidates', 'name\na\n', { query: 'candidates=99' }, 'candidates', /1 to 10/],
    ['an empty body', '', {}, 'body', /empty/],
  ] as const)('%s', async (_label, body, opts, field, reason) => {
    const res = await createJob(app, 'alice', body, opts);
    expect(res.status).toBe(400);
    expect(res.body.errors?.[0]?.field).toBe(field);
    expect(res.body.errors?.[0]?.reason).toMatch(reason);
    expect(JSON.stringify(res.body)).not.toMatch(/at .*\.ts|stack/);
  });

  it('a list over MATCH_JOB_MAX_ROWS is a 413, and leaves no folder', async () => {
    const before = readdirSync(app.dir).length;
    const jobs = app.services.matchJobs as { maxRows: number };
    jobs.maxRows = 50;
    try {
      const res = await createJob(app, 'alice', listCsv(51));
      expect(res.status).toBe(413);
    } finally {
      jobs.maxRows = 1_000_000;
    }
    expect(readdirSync(app.dir)).toHaveLength(before);
  });
});

describe('npm run match over a job', () => {
  it('a list past --job-above goes as one job: progress shown, every row back with its match columns', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'match-cli-job-'));
    const file = path.join(dir, 'list.csv');
    writeFileSync(file, listCsv(30));
    const run = await runToEnd(
      spawn(
        path.join(projectRoot, 'node_modules', '.bin', 'tsx'),
        ['scripts/match.ts', file, '--job-above', '10'],
        {
          cwd: projectRoot,
          env: {
            ...process.env,
            API_KEY_FILE: undefined,
            API_URL: app.url.replace(/\/rest\/v1$/, ''),
            API_KEY: (await app.headers('alice'))['x-api-key'],
          },
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      ),
    );
    expect(run.code, run.stderr).toBe(0);
    // the rows without a name are not sent
    expect(run.stderr).toMatch(/match: job [0-9a-f-]{36} \(25 rows\)/);
    expect(run.stdout).toContain(`matched: ${matchedIn(30)}`);
    const rows = parseCsv(
      readFileSync(path.join(dir, 'list-matched.csv'), 'utf8').replace(/^\uFEFF/, ''),
    ).map((record) => record.fields);
    expect(rows[0]).toEqual([
      '会社名',
      '都道府県',
      'メモ',
      'corporateNumber',
      'matchedName',
      'status',
      'candidates',
    ]);
    expect(rows).toHaveLength(31);
    rows.slice(1).forEach((fields, i) => {
      expect(fields[3]).toBe(expectedOf(i).corporateNumber ?? '');
      expect(fields[5]).toBe(
        expectedOf(i).status === 'matched' ? 'matched' : i % 6 === 2 || i % 6 === 3 ? 'unsure' : 'none',
      );
    });
  });
});

describe('cancel and retention', () => {
  it('DELETE cancels a queued job; the sweep deletes ended jobs past their retention', async () => {
    await worker.worker.pause();
    const created = await createJob(app, 'alice', listCsv(10));
    const cancelled = await fetch(`${app.url}/corporates/match-jobs/${created.body.id}`, {
      method: 'DELETE',
      headers: await app.headers('alice'),
    });
    expect(((await cancelled.json()) as { status: string }).status).toBe('cancelled');
    worker.worker.resume();
    const store = new MatchJobStore(app.services.redis as Redis, app.services.config.redisPrefix);
    expect(readdirSync(app.dir)).toContain(created.body.id);
    await sweepEnded(store, app.dir, 1, pino({ level: 'silent' }), Date.now() + 2 * 3_600_000);
    expect(readdirSync(app.dir)).not.toContain(created.body.id);
    const gone = await fetch(`${app.url}/corporates/match-jobs/${created.body.id}`, {
      headers: await app.headers('alice'),
    });
    expect(gone.status).toBe(404);
  });
});
