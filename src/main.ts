/**
 * The production entry (`node dist/src/main.js`, the container's command): the API alone.
 * `npm start` adds the sample load through scripts/start.ts; see src/server.ts.
 */
import { startServer } from './server.js';

startServer();
