/**
 * What validating one search body costs, by validator
 * (docs/decisions/errors-and-validation.md). In one process, on loopback, no OpenSearch, the same POST through:
 *   - parser: express.json, then the search parser (ajv on the catalogue's schemas + the plan);
 *   - now: the app's validator (search bodies only checked to be objects) + the parser;
 *   - before: express-openapi-validator on the full search body schema + the parser again;
 * CPU time per request, rounds interleaved. Also the parser alone, in process.
 *
 *   npx tsx bench/validation-cost.ts [requests per round, default 2000]
 */
import type { AddressInfo } from 'node:net';
import express from 'express';
import * as OpenApiValidator from 'express-openapi-validator';
import { corporateSearch } from '../src/catalogue/searches.js';
import { openApiDocument, validateRequests } from '../src/http/validation.js';
import { parseSearchRequest } from '../src/search/parse-request.js';

const perRound = Number(process.argv[2] ?? 2000);
const body = {
  prefectureIdOr: [13, 14, 27],
  employeeCountMin: 10,
  filters: { jobTitle: { anyContains: ['営業', 'エンジニア'] }, prefectureId: { none: [1] } },
  filterGroups: [{ prefectureId: { any: [1, 2] } }, { jobTitle: { anyContains: ['事務'] } }],
  sort: { field: 'name', order: 'asc' },
  limit: 50,
};
const text = JSON.stringify(body);

type Setup = 'parser' | 'now' | 'before';

function validatorOf(setup: Setup): express.RequestHandler[] {
  if (setup === 'parser') return [express.json({ limit: '100kb' })];
  if (setup === 'now') return validateRequests();
  return [
    express.json({ limit: '100kb' }),
    ...OpenApiValidator.middleware({
      apiSpec: structuredClone(openApiDocument()),
      validateRequests: { allErrors: true, removeAdditional: false, coerceTypes: false },
      validateResponses: false,
      validateSecurity: false,
      validateFormats: true,
      ajvFormats: { mode: 'full' },
      $refParser: { mode: 'dereference' },
    }),
  ];
}

async function serve(setup: Setup): Promise<{ url: string; close: () => Promise<void> }> {
  const app = express();
  const api = express.Router();
  api.use(validatorOf(setup));
  api.post('/corporates/search', (req, res) => {
    parseSearchRequest(corporateSearch, req.body);
    res.status(204).end();
  });
  app.use('/rest/v1', api);
  app.use((error: { status?: number }, _req: express.Request, res: express.Response, _next: unknown) => {
    res.status(error.status ?? 500).end();
  });
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/rest/v1/corporates/search`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** CPU time (user + system) of this process per request: client and server share the process,
 * the client's part is the same for every setup, and CPU time moves less than wall time on a
 * machine other work is using. */
async function round(url: string): Promise<number> {
  const started = process.cpuUsage();
  for (let i = 0; i < perRound; i++) {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: text,
    });
    if (res.status !== 204) throw new Error(`status ${res.status}`);
  }
  const used = process.cpuUsage(started);
  return (used.user + used.system) / perRound;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;

const setups: Setup[] = ['parser', 'now', 'before'];
const servers = await Promise.all(setups.map((setup) => serve(setup)));
for (const server of servers) await round(server.url); // warm up, compile the schemas
const times = new Map<Setup, number[]>(setups.map((setup) => [setup, []]));
for (let r = 0; r < 5; r++)
  for (const [i, setup] of setups.entries()) times.get(setup)?.push(await round(servers[i]?.url ?? ''));
for (const server of servers) await server.close();

for (let i = 0; i < 1000; i++) parseSearchRequest(corporateSearch, body);
const started = process.hrtime.bigint();
const parses = perRound * 5;
for (let i = 0; i < parses; i++) parseSearchRequest(corporateSearch, body);
const parseMicros = Number(process.hrtime.bigint() - started) / 1000 / parses;

const fmt = (micros: number) => `${micros.toFixed(1)} µs`;
const of = (setup: Setup) => median(times.get(setup) ?? []);
console.log(`CPU time per request (client + server), median of 5 rounds of ${perRound}:`);
console.log(`  parser only (express.json + parse):                ${fmt(of('parser'))}`);
console.log(`  now (validator, bodies as objects + parse):        ${fmt(of('now'))}`);
console.log(`  before (validator on the full schema + parse):     ${fmt(of('before'))}`);
console.log(`parseSearchRequest alone, in process:                ${fmt(parseMicros)}`);
