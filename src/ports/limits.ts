/**
 * Ports of the limits (docs/limits.md): per-account concurrency slots and their queue, and the
 * per-account rate windows, as the actors and services see them. Implemented over the
 * coordination store by src/services/limits/.
 */
import type { ConcurrencyLimits, RateLimitDecision, RateLimits, SlotAcquisition, SlotState } from '../domain/limits.js';

/** Slots and the queue of one account; every call is one atomic store operation. */
export interface ConcurrencyLimiter {
  /** How long a slot stays held without a renewal. */
  readonly leaseMs: number;
  /**
   * A slot ('started'), a queue place ('queued', position from 1) or nothing ('full').
   * `promoted`: holders that got a slot reclaimed from a dead owner during this call; whoever
   * called must start them (ConcurrencyQueue does).
   */
  acquire(accountId: string, holderId: string, limits: ConcurrencyLimits): Promise<SlotAcquisition>;
  /** Frees the holder's slot or place; returns the holders promoted into slots, to be started. */
  release(accountId: string, holderId: string): Promise<string[]>;
  /** The owner's heartbeat: extends its holders' leases; returns the ones that lost their slot. */
  renew(accountId: string, holderIds: readonly string[]): Promise<string[]>;
  state(accountId: string, holderId: string): Promise<SlotState>;
}

export interface RateLimiter {
  /** Counts one request of the account; rejects when the store is unreachable. */
  check(accountId: string, limits: RateLimits): Promise<RateLimitDecision>;
}

/** The concurrency limits in force for an account, with its tier (for metrics). */
export interface RunLimits {
  readonly limits: ConcurrencyLimits;
  readonly tier: string;
}

/** What a run actor needs: take a slot (or a queue place) and give it up. */
export interface RunSlots {
  /** 'started': the slot is held now; 'queued': the run's starter is called when promoted; 'full': nothing was taken. */
  acquire(accountId: string, runId: string, limits?: ConcurrencyLimits): Promise<SlotAcquisition>;
  /** Frees the slot or queue place (a no-op when the run holds neither); returns at once. */
  release(accountId: string, runId: string): void;
  /** The limits in force for the account and its tier (for metrics), or null when the account is gone. */
  limits(accountId: string): Promise<RunLimits | null>;
  /** Where the run stands in its account's slots and queue. */
  state(accountId: string, runId: string): Promise<SlotState>;
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
