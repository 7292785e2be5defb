/**
 * `npm run opensearch`: keeps the local dev OpenSearch node running in the foreground, so
 * that `npm start`, the CLIs and benchmarks reuse it instead of starting their own.
 * Ctrl-C stops it.
 */
import { ensureDevOpenSearch } from '../src/local/opensearch-node.js';

const node = await ensureDevOpenSearch((message) => console.log(message));
if (!node.startedHere) {
  console.log('a dev node is already running; nothing to do');
  process.exit(0);
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
