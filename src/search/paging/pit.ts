/**
 * Points in time (OpenSearch PIT): a frozen view of an index that deep pages, cursors and
 * exports read with search_after, so a list does not shift while documents change.
 */
import type { Deadline } from '../../deadline.js';
import type { Engine } from '../../opensearch/engine.js';

/** `deadline`: the request's, if the PIT is opened while a caller waits (src/deadline.ts). */
export async function openPit(client: Engine, index: string, keepAliveSeconds: number, deadline?: Deadline) {
  const { body } = await client.createPit(
    { index: [index], keep_alive: `${keepAliveSeconds}s` },
    { deadline },
  );
  return body.pit_id;
}

/** Best effort: a PIT left open expires by itself after its keep-alive. */
export async function closePit(client: Engine, pitId: string): Promise<void> {
  try {
    await client.deletePit({ body: { pit_id: [pitId] } });
  } catch {
    // already gone or the engine is away; the keep-alive ends it
  }
}
