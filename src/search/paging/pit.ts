/**
 * Points in time (OpenSearch PIT): a frozen view of an index that deep pages, cursors and
 * exports read with search_after, so a list does not shift while documents change.
 */
import { errors as clientErrors } from '@opensearch-project/opensearch';
import type { Deadline } from '../../deadline.js';
import type { OpenSearchClient } from '../../opensearch/client.js';
import { withinDeadline } from '../../opensearch/deadline.js';

/** `deadline`: the request's, if the PIT is opened while a caller waits (src/deadline.ts). */
export async function openPit(
  client: OpenSearchClient,
  index: string,
  keepAliveSeconds: number,
  deadline?: Deadline,
) {
  const { body } = await withinDeadline(deadline, 'point in time', (options) =>
    client.createPit({ index: [index], keep_alive: `${keepAliveSeconds}s` }, options),
  );
  return body.pit_id;
}

/** Best effort: a PIT left open expires by itself after its keep-alive. */
export async function closePit(client: OpenSearchClient, pitId: string): Promise<void> {
  try {
    await client.deletePit({ body: { pit_id: [pitId] } });
  } catch {
    // already gone or the engine is away; the keep-alive ends it
  }
}

/** The engine no longer holds this PIT (keep-alive passed, node restarted). */
export function isPitGone(error: unknown): boolean {
  if (!(error instanceof clientErrors.ResponseError)) return false;
  const body = error.meta.body as { error?: { type?: string; root_cause?: Array<{ type?: string }> } };
  const types = [body?.error?.type, ...(body?.error?.root_cause ?? []).map((cause) => cause.type)];
  return error.meta.statusCode === 404 || types.includes('search_context_missing_exception');
}
