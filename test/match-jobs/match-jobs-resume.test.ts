/**
 * A match job outlives its worker: the real worker (indexer/bin/worker.ts) in a child process
 * of this test is killed (SIGKILL, by its pid) in the middle of a job; a second one started
 * after it finishes the job from the last finished chunk. Every row is answered exactly once,
 * in input order, no chunk counted before the kill is matched again, and each certain match
 * is charged once (the balance moves by exactly the job's `creditsCharged`, no reservation
 * is left open).
 */
import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { parseCsv } from '../../src/text/csv.js';
import {
  createJob,
  expectedOf,
  type JobsApp,
  listCsv,
  matchedIn,
  startJobsApp,
  waitForJob,
} from '../support/match-jobs.js';
import { startWorkerChild, stopChild } from '../support/worker-child.js';

let app: JobsApp;
const children: ChildProcess[] = [];

beforeAll(async () => {
  app = await startJobsApp('match-jobs-resume');
  await app.services.limits.ledger.grant('dana', 100_000);
});
afterAll(async () => {
  // whatever happened, no worker of this test outlives it
  for (const child of children) stopChild(child);
  await app?.close();
});

interface ChunkLog {
  msg: string;
  rowsDone?: number;
}

/** The real worker on this file's prefixes and folder; its log lines are collected. */
function startWorker() {
  const worker = startWorkerChild<ChunkLog>(app.services.config, {
    MATCH_JOBS_DIR: app.dir,
    MATCH_JOB_CHUNK_RECORDS: '50',
    MATCH_JOB_STALL_SECONDS: '2',
  });
  children.push(worker.child);
  return worker;
}

it('a worker killed mid-job is followed by another that finishes it: no row lost or redone, each match charged once', async () => {
  const rows = 3000;
  const before = await app.services.limits.ledger.balance('dana');
  const created = await createJob(app, 'dana', listCsv(rows));
  expect(created.status).toBe(202);
  const id = created.body.id;

  const first = startWorker();
  let second: ReturnType<typeof startWorker> | undefined;
  try {
    await first.ready;
    // progress is readable while it runs; stop the worker a few chunks in
    const running = await waitForJob(app, 'dana', id, (job) => job.rows.done >= 400, 90_000);
    expect(running.status).toBe('running');
    process.kill(first.child.pid as number, 'SIGKILL');
    await new Promise((resolve) => first.child.once('exit', resolve));
    const atKill = await waitForJob(app, 'dana', id, () => true);
    expect(atKill.rows.done).toBeLessThan(rows);

    second = startWorker();
    const done = await waitForJob(app, 'dana', id, (job) => job.status === 'completed', 120_000);
    expect(done.rows).toMatchObject({ total: rows, done: rows, matched: matchedIn(rows) });
    // charged once per certain match, and nothing reserved left behind
    expect(done.creditsCharged).toBe(matchedIn(rows));
    expect(await app.services.limits.ledger.balance('dana')).toBe(before - matchedIn(rows));
    expect((await app.services.limits.ledger.account('dana')).open.reservations).toBe(0);
    // the second worker began after the chunks counted before the kill: none matched again
    const chunks = second.logs.filter((entry) => entry.msg === 'match job: chunk done');
    expect(chunks.length).toBeGreaterThan(0);
    expect(Math.min(...chunks.map((entry) => entry.rowsDone ?? 0))).toBeGreaterThan(atKill.rows.done);
    expect(Math.max(...first.logs.map((entry) => entry.rowsDone ?? 0))).toBeGreaterThanOrEqual(400);

    // every row once, in input order, with the answer its name calls for
    const res = await fetch(`${app.url}/corporates/match-jobs/${id}/results?format=csv`, {
      headers: await app.headers('dana'),
    });
    const [header, ...body] = parseCsv(await res.text()).map((record) => record.fields);
    const at = (name: string) => (header as string[]).indexOf(name);
    expect(body.map((fields) => fields[at('rowNumber')])).toEqual(
      Array.from({ length: rows }, (_, i) => String(i + 1)),
    );
    body.forEach((fields, i) => {
      expect(fields[at('matchStatus')]).toBe(expectedOf(i).status);
      expect(fields[at('matchCorporateNumber')]).toBe(expectedOf(i).corporateNumber ?? '');
    });
  } finally {
    for (const worker of [first, second]) if (worker) stopChild(worker.child);
  }
}, 240_000);
