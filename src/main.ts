/**
 * The production entry (`node dist/src/main.js`, the container's command): the API alone, on
 * the engine of OPENSEARCH_URL; it starts no engine of its own (unset: one line, exit 1).
 * `npm start` adds the local node and the sample load through scripts/start.ts; see src/server.ts.
 */
import { startServer } from './server.js';

startServer();
