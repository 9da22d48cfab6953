/**
 * Ports of the limits (docs/limits.md): per-account concurrency slots and their queue, and the
 * per-account rate windows, as the actors and services see them. Implemented over the
 * coordination store by src/services/limits/ (concurrency.ts, rate-limiter.ts, lease-keeper.ts).
 */
import type { ConcurrencyLimits, RateLimitDecision, RateLimits, SlotAcquisition, SlotState } from '../domain/limits.js';

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

/** The concurrency limits in force for an account, with its tier (for metrics). */
export interface AccountConcurrency {
  readonly limits: ConcurrencyLimits;
  readonly tier: string;
}

export interface AcquireOptions {
  /** The limits in force; absent: read from the account (a deleted account's holder goes on: 'started'). */
  readonly limits?: ConcurrencyLimits;
  /**
   * A request waits on this call: the account read and the slot are bounded by the store
   * deadline (StoreDeadlineExceeded past it), and a slot or place granted too late is given back.
   */
  readonly onRequest?: boolean;
}

/**
 * Per-account concurrency slots and their queue (docs/limits.md), one per worker: what
 * orchestration, workflow runs and recovery use. A holder is whatever occupies a slot (an
 * execution or a workflow run; its id unique across both). Every store call is one atomic
 * operation; holders promoted into a slot by a call made on this worker start here, through the
 * starters registered with `addStarter`.
 */
export interface Concurrency {
  /** A slot ('started'), a queue place ('queued', position from 1) or nothing ('full'). */
  acquire(accountId: string, holderId: string, options?: AcquireOptions): Promise<SlotAcquisition>;
  /** Frees the holder's slot or place (a no-op when it holds neither), then starts whoever it promoted; returns at once. */
  release(accountId: string, holderId: string): void;
  /** The owners' heartbeat: extends these holders' leases; returns the ones that lost their slot. */
  renew(accountId: string, holderIds: readonly string[]): Promise<string[]>;
  /** Where the holder stands in its account's slots and queue. */
  state(accountId: string, holderId: string): Promise<SlotState>;
  /** The limits in force for the account, or null when the account is gone (`onRequest`: bounded as in acquire). */
  limits(accountId: string, options?: Pick<AcquireOptions, 'onRequest'>): Promise<AccountConcurrency | null>;
  /** Adds a starter asked (in the order added) to start holders promoted on this worker. */
  addStarter(starter: PromotionStarter): void;
}

export interface RateLimiter {
  /** Counts one request of the account; rejects when the store is unreachable. */
  check(accountId: string, limits: RateLimits): Promise<RateLimitDecision>;
}

/**
 * The slot leases this worker's owners hold (executions and workflow runs), kept alive by one
 * heartbeat. Supervisors say when an owner takes and gives up a slot; recovery asks whether an
 * owner is alive here before treating its execution as orphaned.
 */
export interface SlotLeases {
  hold(accountId: string, holderId: string): void;
  drop(holderId: string): void;
  /** Whether an owner on this worker holds this slot now (whatever its lease in the store says). */
  holds(holderId: string): boolean;
}
