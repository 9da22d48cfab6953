/**
 * The concurrency queue as a submitting request sees it: taking a slot is a Redis call the
 * request waits on, so it is bounded by the store deadline (src/ports/deadline.ts) like every
 * other request-path store call. The call still reaches Redis after the deadline, so the holder
 * is released at once: commands go out in order on one connection, so the release follows the
 * late acquire and the slot (or queue place) is not held until its lease lapses.
 */
import type { ConcurrencyQueue } from '../../actors/concurrency-queue-protocol.js';
import { StoreDeadlineExceeded, withDeadline } from '../../ports/deadline.js';

export function withAcquireDeadline<Q extends ConcurrencyQueue>(queue: Q, deadlineMs: number): Q {
  return {
    ...queue,
    acquire: (accountId, holderId, limits) =>
      withDeadline(queue.acquire(accountId, holderId, limits), deadlineMs, 'concurrency.acquire').catch((error: unknown) => {
        if (error instanceof StoreDeadlineExceeded) queue.release(accountId, holderId);
        throw error;
      }),
  };
}
