/**
 * Messages of the ConcurrencyQueueActor (one per worker) and the `ConcurrencyQueue` facade that
 * orchestration and workflow code use, so they never send the messages themselves.
 */
import type { ConcurrencyLimiter } from '../ports/limits.js';
import type { ConcurrencyLimits, SlotAcquisition } from '../domain/limits.js';
import type { TimerTick } from './kit/timers.js';

/**
 * What became of a holder promoted into a slot when one starter was asked to start it here:
 * 'started' (it runs on this worker now), 'finished' (it is one of this starter's but already
 * ended or was cancelled: its slot goes to the next), 'unknown' (not this starter's, or not
 * recorded yet: the next starter is asked, and later all of them again).
 */
export type PromotionOutcome = 'started' | 'finished' | 'unknown';

export interface PromotionStarter {
  start(accountId: string, holderId: string): Promise<PromotionOutcome>;
}

/** The per-worker face of the concurrency queue (docs/limits.md). */
export interface ConcurrencyQueue {
  readonly limiter: ConcurrencyLimiter;
  /** Takes a slot or a queue place (see ConcurrencyLimiter.acquire); holders promoted on the way are started. */
  acquire(accountId: string, holderId: string, limits: ConcurrencyLimits): Promise<SlotAcquisition>;
  /** Frees the holder's slot or place, then starts whoever it promoted; returns at once. */
  release(accountId: string, holderId: string): void;
  /** Extends leases of holders this worker runs; returns those that lost their slot. */
  renew(accountId: string, holderIds: readonly string[]): Promise<string[]>;
  /** Adds a starter asked (in the order added) to start holders promoted on this worker. */
  addStarter(starter: PromotionStarter): void;
}

export type ConcurrencyQueueMessage =
  | { readonly type: 'concurrency.release'; readonly accountId: string; readonly holderId: string }
  | { readonly type: 'concurrency.promoted'; readonly accountId: string; readonly holderIds: readonly string[]; readonly attempt: number }
  /** No starter knew the holder yet (its record may still be committing): ask again later. */
  | { readonly type: 'concurrency.unclaimed'; readonly accountId: string; readonly holderId: string; readonly attempt: number }
  | { readonly type: 'concurrency.retry'; readonly accountId: string; readonly holderId: string; readonly attempt: number; readonly timer: TimerTick }
  | { readonly type: 'concurrency.scan'; readonly timer: TimerTick }
  | { readonly type: 'concurrency.scanned' };
