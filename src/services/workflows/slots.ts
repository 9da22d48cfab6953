/**
 * Concurrency slots for workflow runs (docs/limits.md, docs/workflows.md): a run counts against
 * its account's concurrent executions, shared with orchestrations, while it works; it gives the
 * slot up while paused on an approval and takes one again to go on. The run id is the holder id
 * (`exec_…` ids are unique across orchestrations and runs).
 */
import type { RunLimits, RunSlots } from '../../ports/limits.js';
import type { ConcurrencyQueue } from '../../actors/concurrency-queue-protocol.js';
import { concurrencyLimitsFor } from '../limits/concurrency.js';
import type { AccountStore } from '../../ports/accounts.js';
import type { ConcurrencyLimits, SlotAcquisition, SlotState } from '../../domain/limits.js';



/** Workflows carry no latency estimate; a step (an agent call and its tools) is taken as about this long. */
const ESTIMATED_MS_PER_STEP = 10_000;

/** A rough duration of a run, for QUEUE_FULL's retryAfter. */
export function estimatedRunMs(steps: number): number {
  return Math.max(1, steps) * ESTIMATED_MS_PER_STEP;
}

export function runSlots(queue: Pick<ConcurrencyQueue, 'acquire' | 'release' | 'limiter'>, accounts: Pick<AccountStore, 'get'>): RunSlots {
  async function limits(accountId: string): Promise<RunLimits | null> {
    const account = await accounts.get(accountId);
    return account === null ? null : { limits: concurrencyLimitsFor(account), tier: account.tier };
  }
  return {
    limits,
    async acquire(accountId, runId, known) {
      const forAccount = known ?? (await limits(accountId))?.limits ?? null;
      // A deleted account has no limits left to enforce; its run goes on (and ends) as before.
      if (forAccount === null) return { status: 'started', promoted: [] };
      return queue.acquire(accountId, runId, forAccount);
    },
    release: (accountId, runId) => queue.release(accountId, runId),
    state: (accountId, runId) => queue.limiter.state(accountId, runId),
  };
}
