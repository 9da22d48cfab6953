/**
 * Execution concurrency per account (DESIGN §10, spec §8) as the rest of the code sees it: a
 * `ConcurrencyLimiter` over the Coordination store's slots and queue, the limits in force for an
 * account, and the lease settings. A holder is whatever occupies a slot: an orchestration
 * execution, or a workflow run (docs/limits.md says how a workflow run uses this).
 */
import type { ConcurrencyLimiter } from '../../ports/limits.js';
import { limitsFor } from '../../domain/limits.js';
import type { Account } from '../../domain/accounts.js';
import type { ConcurrencyLimits, SlotAcquisition, SlotState } from '../../domain/limits.js';
import type { Coordination } from '../../ports/coordination.js';
import type { Config } from '../../support/config.js';


export interface ConcurrencyLimiterOptions {
  readonly leaseMs: number;
  /** Epoch milliseconds; tests pass a fake. Leases assume node clocks agree to well under a lease. */
  readonly now?: () => number;
}

export function concurrencyLimiter(
  store: Pick<Coordination, 'acquireSlot' | 'releaseSlot' | 'renewSlots' | 'slotState'>,
  options: ConcurrencyLimiterOptions,
): ConcurrencyLimiter {
  const now = options.now ?? Date.now;
  const leaseMs = options.leaseMs;
  return {
    leaseMs,
    acquire: (accountId, holderId, limits) => store.acquireSlot(accountId, holderId, limits, leaseMs, now()),
    release: (accountId, holderId) => store.releaseSlot(accountId, holderId, leaseMs, now()),
    renew: (accountId, holderIds) => store.renewSlots(accountId, holderIds, leaseMs, now()),
    state: (accountId, holderId) => store.slotState(accountId, holderId, now()),
  };
}

/** The account's concurrent executions and queue size (ENTERPRISE: from the account). */
export function concurrencyLimitsFor(account: Pick<Account, 'tier' | 'limits'>): ConcurrencyLimits {
  const limits = limitsFor(account);
  return { concurrent: limits.concurrentExecutions, queueSize: limits.queueSize };
}

/**
 * Seconds a client refused with QUEUE_FULL should wait: about the time for one slot to free,
 * i.e. the execution's estimated duration spread over the account's slots, within 1–60 s.
 */
export function queueRetryAfterSeconds(estimatedDurationMs: number, concurrent: number): number {
  const perSlotMs = estimatedDurationMs / Math.max(1, concurrent);
  return Math.min(60, Math.max(1, Math.ceil(perSlotMs / 1000)));
}

/** Lease timing (docs/limits.md), from config (BATON_LEASE_MS, BATON_RECOVERY_SCAN_MS). */
export interface LeaseSettings {
  /** A slot (and with it an execution's ownership) lapses this long after its last renewal. */
  readonly leaseMs: number;
  /** Owners renew a third of the way through, so two renewals can fail before a lease lapses. */
  readonly renewEveryMs: number;
  /** How often each worker looks for live executions whose owner is gone. */
  readonly scanEveryMs: number;
}

export function leaseSettingsFrom(config: Pick<Config, 'leaseMs' | 'recoveryScanMs'>): LeaseSettings {
  const { leaseMs } = config;
  return { leaseMs, renewEveryMs: renewEveryMs(leaseMs), scanEveryMs: config.recoveryScanMs };
}

/** A third of the lease (at least 100 ms), so two renewals can fail before it lapses. */
export function renewEveryMs(leaseMs: number): number {
  return Math.max(100, Math.floor(leaseMs / 3));
}
