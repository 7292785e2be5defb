/**
 * An engine call made on behalf of a request that runs under a deadline (src/deadline.ts): the
 * engine port (./engine.ts) runs every call given a `deadline` through `withinDeadline`.
 */
import { errors as clientErrors } from '@opensearch-project/opensearch';
import { type Deadline, DeadlineExceeded } from '../deadline.js';

/**
 * One OpenSearch call inside the request's deadline: it gets the time left as its
 * requestTimeout, so the client gives up at the deadline and closes the connection, which
 * makes OpenSearch cancel a running search task. The transport's own retry is off (it would
 * start again with the full timeout, past the deadline); instead a fast failure (connection
 * refused, no living node) is retried once here with whatever time is left, which is what a
 * retry on another node is for. A timeout at the deadline is reported as DeadlineExceeded.
 *
 * (Aborting through the transport's `abort()` was tried: with opensearch-js 3.9 an abort
 * racing the request's own timeout surfaced as an uncaught exception. The search path's own
 * requests, ./search-transport.ts, also end when the deadline's signal aborts.)
 *
 *   withinDeadline(deadline, 'job detail', (options) => client.get(request, options)); // ./engine.ts
 */
export async function withinDeadline<T>(
  deadline: Deadline | undefined,
  operation: string,
  call: (options: { requestTimeout?: number; maxRetries?: number }) => Promise<T>,
): Promise<T> {
  if (!deadline) return call({});
  for (let attempt = 1; ; attempt++) {
    const remaining = deadline.remainingMs();
    // `expired`, not the signal: reading it would make the signal for a call that never uses it
    if (remaining <= 0 || deadline.expired) throw new DeadlineExceeded(operation);
    try {
      return await call({ requestTimeout: remaining, maxRetries: 0 });
    } catch (error) {
      if (deadline.expired || error instanceof clientErrors.TimeoutError)
        throw new DeadlineExceeded(operation);
      const fast =
        error instanceof clientErrors.ConnectionError ||
        error instanceof clientErrors.NoLivingConnectionsError;
      if (!fast || attempt >= 2) throw error;
    }
  }
}
