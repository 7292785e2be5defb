/**
 * `npm run opensearch`: keeps the local dev OpenSearch node running in the foreground, so
 * that `npm start`, the CLIs and benchmarks reuse it instead of starting their own.
 * Ctrl-C stops it.
 */
import { cliProgram, runCli } from '../ops/cli.js';
import { ensureDevOpenSearch } from '../ops/local/opensearch-node.js';

cliProgram(
  'opensearch',
  'Run the local OpenSearch node in the foreground (data under .local/opensearch/dev) for ' +
    '`npm start`, the CLIs and benchmarks to reuse. Ctrl-C stops it. OPENSEARCH_HEAP sets its heap (1g), ' +
    'OPENSEARCH_LOCAL_PORT its port (unset: the first free one from 9201).',
).parse();

runCli('opensearch', async () => {
  const node = await ensureDevOpenSearch((message) => console.log(message));
  if (!node.startedHere) {
    console.log('a dev node is already running; nothing to do');
    return;
  }
  console.log(`OPENSEARCH_URL=${node.url}`);
  let stopping = false;
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.on(signal, () => {
      if (stopping) return;
      stopping = true;
      console.log('stopping OpenSearch…');
      void node.stop().then(() => process.exit(0));
    });
  }
});
