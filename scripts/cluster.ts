/**
 * `npm run cluster`: the production shape on this machine, without Docker (scripts/local-stack.ts):
 * 3 OpenSearch nodes, redis-server with the append-only file (`--redis-sentinel`: a primary, a
 * replica and three Sentinels), 2 API processes, 2 workers.
 * Prints where each listens; Ctrl-C stops all of them. Data stays under .local/cluster/
 * between runs (`--fresh` starts empty).
 */
import { rmSync } from 'node:fs';
import path from 'node:path';
import { cliProgram, positiveWholeNumber } from '../ops/cli.js';
import { projectRoot } from '../src/project-root.js';
import { startStack } from './local-stack.js';

const program = cliProgram(
  'cluster',
  'Start 3 OpenSearch nodes, redis-server (append-only), API processes and workers on loopback',
)
  .option('--apis <n>', 'API processes', positiveWholeNumber, 2)
  .option('--workers <n>', 'indexer workers', positiveWholeNumber, 2)
  .option('--heap <size>', 'heap per OpenSearch node', '512m')
  .option('--dir <dir>', 'data, append-only file and logs', path.join(projectRoot, '.local', 'cluster'))
  .option('--fresh', 'delete the data folder first')
  .option('--built', 'run dist/ (npm run build) instead of the sources')
  .option(
    '--redis-sentinel',
    'Redis as a primary, a replica and three Sentinels (REDIS_URL redis-sentinel://...), as production runs it',
  )
  .parse();
const options = program.opts<{
  apis: number;
  workers: number;
  heap: string;
  dir: string;
  fresh?: boolean;
  built?: boolean;
  redisSentinel?: boolean;
}>();

const say = (line: string) => process.stderr.write(`[cluster] ${line}\n`);
if (options.fresh) rmSync(options.dir, { recursive: true, force: true });
const started = Date.now();
const stack = await startStack({
  baseDir: options.dir,
  clusterName: 'corpsearch-cluster',
  apis: options.apis,
  workers: options.workers,
  heap: options.heap,
  built: options.built ?? false,
  redis: options.redisSentinel ? 'sentinel' : 'single',
  log: say,
});

let stopping = false;
async function stop(signal: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  say(`${signal}: stopping everything`);
  await stack.stop();
  say('stopped');
  process.exit(0);
}
process.on('SIGINT', () => void stop('SIGINT'));
process.on('SIGTERM', () => void stop('SIGTERM'));

const rows: string[][] = [['member', 'pid', 'listens on']];
for (const node of stack.nodes)
  rows.push([
    `opensearch node-${node.index}`,
    String(node.pid()),
    `${node.url} (transport 127.0.0.1:${node.transportPort})`,
  ]);
const sentinel = stack.redis.sentinel;
if (sentinel) {
  const primary = await sentinel.primary();
  for (const member of sentinel.members)
    rows.push([
      `redis-server ${member === primary ? 'primary' : 'replica'} (appendonly)`,
      String(member.pid()),
      `redis://127.0.0.1:${member.port} (AOF in ${stack.redis.dir})`,
    ]);
  rows.push([
    'redis sentinels (3)',
    '-',
    sentinel.sentinelPorts.map((port) => `127.0.0.1:${port}`).join(' '),
  ]);
} else
  rows.push([
    'redis-server (appendonly)',
    String(stack.redis.pid()),
    `${stack.redis.url} (AOF in ${stack.redis.dir})`,
  ]);
for (const api of stack.apis)
  rows.push([api.name, String(api.pid()), `${api.url} (metrics ${api.metricsUrl})`]);
for (const worker of stack.workers)
  rows.push([worker.name, String(worker.pid()), `metrics ${worker.metricsUrl}`]);
const widths = rows[0]?.map((_, column) => Math.max(...rows.map((row) => (row[column] ?? '').length))) ?? [];
const table = rows.map((row) =>
  row
    .map((cell, column) => cell.padEnd(widths[column] ?? 0))
    .join('  ')
    .trimEnd(),
);
process.stdout.write(`${table.join('\n')}\n\n`);
process.stdout.write(
  [
    `up after ${((Date.now() - started) / 1000).toFixed(1)} s; logs in ${path.join(options.dir, 'logs')}; Ctrl-C stops all.`,
    'Use it from another terminal:',
    `  export OPENSEARCH_URL=${stack.opensearchUrl} REDIS_URL=${stack.redis.url}`,
    '  npm run -s keys -- create alice --credits 1000 > .local/alice.key     # a key in the shared store',
    '  npm run ingest -- .local/sample/corporates.ndjson .local/sample/jobs.ndjson   # through the queue',
    `  curl -s ${stack.apis[0]?.url}/readyz`,
    '',
  ].join('\n'),
);
