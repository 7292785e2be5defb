/**
 * The baseline for the master endpoints: a bare Express 5 route serving the same master body
 * with no middleware (no request id, log, auth). Run as its own process by bench/run.ts:
 *   PORT=4100 node --import tsx bench/bare-express.ts
 */
import express from 'express';
import { loadMasters } from '../src/masters/masters.js';

const master = loadMasters().get('prefectures');
if (!master) throw new Error('no prefectures master');
const app = express();
app.get('/master/prefectures', (_req, res) => {
  res.type('application/json').send(master.body);
});
app.listen(Number(process.env.PORT), '127.0.0.1', () => {
  process.stdout.write('listening\n');
});
