/**
 * Execution concurrency per account (DESIGN §10, spec §8): the one `Concurrency` facade
 * (src/ports/limits.ts) over the Coordination store's slots and queue and this worker's
 * ConcurrencyQueueActor, the limits in force for an account, and the lease settings. A holder is
 * whatever occupies a slot: an orchestration execution, or a workflow run (docs/limits.md).
 */
import { spawnConcurrencyQueue, type ConcurrencyQueueDeps } from '../../actors/concurrency-queue-actor.js';
import { dispatch } from '../../actors/kit/index.js';
import type { ActorRuntime } from '../../actors/root-supervisor.js';
import type { AccountConcurrency, AcquireOptions, Concurrency, PromotionStarter } from '../../ports/limits.js';
import { limitsFor } from '../../domain/limits.js';
import type { Account } from '../../domain/accounts.js';
import type { ConcurrencyLimits, SlotAcquisition } from '../../domain/limits.js';
import type { AccountStore } from '../../ports/accounts.js';
import type { Coordination } from '../../ports/coordination.js';
import { StoreDeadlineExceeded, withDeadline } from '../../ports/deadline.js';
import type { Config } from '../../support/config.js';

export interface ConcurrencyOptions extends Omit<ConcurrencyQueueDeps, 'releaseSlot' | 'starters' | 'recover'> {
  /** The slots and queue; unbounded (a request's deadline is applied here, with its give-back). */
  readonly store: Pick<Coordination, 'acquireSlot' | 'releaseSlot' | 'renewSlots' | 'slotState'>;
  /** Where an account's limits are read when the caller does not pass them. */
  readonly accounts: Pick<AccountStore, 'get'>;
  readonly leaseMs: number;
  /** Epoch milliseconds; tests pass a fake. Leases assume node clocks agree to well under a lease. */
  readonly now?: () => number;
  /**
   * What calls made with `onRequest` use: the request-path account store (bounded like every
   * read a request waits on) and the deadline of taking a slot (null: in-process coordination,
   * which cannot be unreachable). Absent: those calls are not bounded.
   */
  readonly onRequest?: { readonly accounts: Pick<AccountStore, 'get'>; readonly acquireDeadlineMs: number | null };
  /** The recovery scan, built over this facade (src/services/orchestration/recovery.ts). Absent: no scans (tests). */
  readonly recovery?: (concurrency: Concurrency) => (first: boolean) => Promise<void>;
}

/** Spawns this worker's ConcurrencyQueueActor under `runtime` and returns the facade over it and the store. */
export function startConcurrency(runtime: Pick<ActorRuntime, 'spawnChild'>, options: ConcurrencyOptions, name = 'concurrency'): Concurrency {
  const { store, leaseMs } = options;
  const now = options.now ?? Date.now;
  const starters: PromotionStarter[] = [];
  // Set before the actor's first scan, which runs on a timer after this returns.
  let recover: ((first: boolean) => Promise<void>) | undefined;
  const ref = spawnConcurrencyQueue(
    runtime,
    {
      releaseSlot: (accountId, holderId) => store.releaseSlot(accountId, holderId, leaseMs, now()),
      starters,
      ...(options.recovery === undefined ? {} : { recover: (first: boolean) => recover!(first) }),
      scanEveryMs: options.scanEveryMs,
      logger: options.logger,
      ...(options.unclaimedRetryMs === undefined ? {} : { unclaimedRetryMs: options.unclaimedRetryMs }),
      ...(options.unclaimedAttempts === undefined ? {} : { unclaimedAttempts: options.unclaimedAttempts }),
    },
    name,
  );

  async function limits(accountId: string, onRequest: boolean): Promise<AccountConcurrency | null> {
    const accounts = onRequest && options.onRequest !== undefined ? options.onRequest.accounts : options.accounts;
    const account = await accounts.get(accountId);
    return account === null ? null : { limits: concurrencyLimitsFor(account), tier: account.tier };
  }

  /** One atomic acquire; holders it promoted (reclaimed from a dead owner) start on this worker. */
  async function take(accountId: string, holderId: string, forAccount: ConcurrencyLimits): Promise<SlotAcquisition> {
    const acquisition = await store.acquireSlot(accountId, holderId, forAccount, leaseMs, now());
    if (acquisition.promoted.length > 0) dispatch(ref, { type: 'concurrency.promoted', accountId, holderIds: acquisition.promoted, attempt: 1 });
    return acquisition;
  }

  const release = (accountId: string, holderId: string): void => dispatch(ref, { type: 'concurrency.release', accountId, holderId });

  const facade: Concurrency = {
    async acquire(accountId, holderId, acquireOptions: AcquireOptions = {}) {
      const onRequest = acquireOptions.onRequest === true;
      const forAccount = acquireOptions.limits ?? (await limits(accountId, onRequest))?.limits ?? null;
      // A deleted account has no limits left to enforce; its holder goes on (and ends) as before.
      if (forAccount === null) return { status: 'started', promoted: [] };
      const deadlineMs = onRequest ? (options.onRequest?.acquireDeadlineMs ?? null) : null;
      if (deadlineMs === null) return take(accountId, holderId, forAccount);
      // The call still reaches Redis after the deadline, so the holder is released at once:
      // commands go out in order on one connection, so the release follows the late acquire and
      // the slot (or place) is not held until its lease lapses.
      return withDeadline(take(accountId, holderId, forAccount), deadlineMs, 'concurrency.acquire').catch((error: unknown) => {
        if (error instanceof StoreDeadlineExceeded) release(accountId, holderId);
        throw error;
      });
    },
    release,
    renew: (accountId, holderIds) => store.renewSlots(accountId, holderIds, leaseMs, now()),
    state: (accountId, holderId) => store.slotState(accountId, holderId, now()),
    limits: (accountId, limitsOptions) => limits(accountId, limitsOptions?.onRequest === true),
    addStarter: (starter) => void starters.push(starter),
  };
  recover = options.recovery?.(facade);
  return facade;
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
