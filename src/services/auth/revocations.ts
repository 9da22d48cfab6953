/**
 * Key revocation across workers and nodes. Deactivating or deleting a key evicts it from the
 * key cache of every worker, and the revoking request answers only after every worker has
 * acknowledged, so "refused on the very next request, wherever it lands" holds.
 */
import type { Logger } from '../../support/log.js';
import type { Coordination } from '../../ports/coordination.js';
import type { KeyCache } from './key-cache.js';

export const REVOCATION_CHANNEL = 'auth.revoke';
const ACK_TIMEOUT_MS = 2_000;

export interface KeyRevocations {
  /** Evicts a key hash everywhere; resolves when every worker confirmed (or after a timeout). */
  revoke(keyHash: string): Promise<void>;
  stop(): Promise<void>;
}

export async function startKeyRevocations(coordination: Coordination, cache: KeyCache, logger: Logger): Promise<KeyRevocations> {
  const unsubscribe = await coordination.subscribe(REVOCATION_CHANNEL, (keyHash) => {
    cache.evict(keyHash);
  });
  // Revocations published while the subscription was down never arrived: forget everything.
  coordination.onSubscriptionRestored(() => {
    cache.clear();
    logger.warn('coordination subscription restored; API key cache cleared');
  });
  return {
    async revoke(keyHash) {
      cache.evict(keyHash);
      const { delivered, acknowledged } = await coordination.broadcastAndAwait(REVOCATION_CHANNEL, keyHash, ACK_TIMEOUT_MS);
      if (acknowledged < delivered) {
        // A worker that cannot acknowledge in time is wedged; its cache TTL still bounds staleness.
        logger.warn({ delivered, acknowledged }, 'key revocation not acknowledged by every worker');
      }
    },
    stop: unsubscribe,
  };
}
