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

/** Lease timing (docs/limits.md); read from the environment once per worker. */
export interface LeaseSettings {
  /** BATON_LEASE_MS: a slot (and with it an execution's ownership) lapses this long after its last renewal. */
  readonly leaseMs: number;
  /** Owners renew a third of the way through, so two renewals can fail before a lease lapses. */
  readonly renewEveryMs: number;
  /** BATON_RECOVERY_SCAN_MS: how often each worker looks for live executions whose owner is gone. */
  readonly scanEveryMs: number;
}

const DEFAULT_LEASE_MS = 30_000;

function integerFrom(env: Readonly<Record<string, string | undefined>>, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) throw new RangeError(`${name}: expected an integer from ${min} to ${max}, got '${raw}'`);
  return value;
}

/** Throws at start-up, naming the variable, when a value is out of range. */
export function leaseSettingsFrom(env: Readonly<Record<string, string | undefined>> = process.env): LeaseSettings {
  const leaseMs = integerFrom(env, 'BATON_LEASE_MS', DEFAULT_LEASE_MS, 300, 3_600_000);
  const scanEveryMs = integerFrom(env, 'BATON_RECOVERY_SCAN_MS', Math.max(100, Math.floor(leaseMs / 2)), 100, 3_600_000);
  return { leaseMs, renewEveryMs: Math.max(100, Math.floor(leaseMs / 3)), scanEveryMs };
}
