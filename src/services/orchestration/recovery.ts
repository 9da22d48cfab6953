/**
 * Recovery of orchestration executions whose owner is gone (DESIGN §9), run on a timer by every
 * worker's ConcurrencyQueueActor (behind the Concurrency facade). An execution's owner holds its
 * concurrency slot with a lease it renews; a live execution without a live lease has lost its owner:
 * - RUNNING: its agent calls died with the owner, and agents are not assumed idempotent, so it
 *   is marked FAILED with EXECUTION_INTERRUPTED (a conditional transition: of several workers
 *   scanning at once exactly one wins, and only that one sends the webhook and frees the slot);
 * - PENDING without a queue place or a slot (lost with Redis, or promoted by a worker that died
 *   before starting it): it takes a place again, and starts here if a slot is free.
 * Also reports the queue depth (PENDING executions) to metrics.
 */
import type { ExecutionEvents } from '../../actors/execution-actor.js';
import type { Concurrency } from '../../ports/limits.js';
import type { Logger } from '../../support/log.js';
import type { Metrics } from '../../support/metrics/index.js';
import type { ExecutionRecord } from '../../domain/executions.js';
import { RunErrorCode } from '../../domain/errors.js';
import type { ExecutionStore } from '../../ports/executions.js';

export const EXECUTION_INTERRUPTED = RunErrorCode.EXECUTION_INTERRUPTED;

export interface RecoveryDeps {
  readonly executions: Pick<ExecutionStore, 'listLive' | 'getById' | 'transition'>;
  /** Slots and the queue (the facade this scan runs in). */
  readonly concurrency: Pick<Concurrency, 'state' | 'limits' | 'acquire' | 'release'>;
  /** Runs a PENDING execution that got a slot on this worker. */
  readonly start: (record: ExecutionRecord) => void;
  readonly events: ExecutionEvents;
  readonly metrics: Pick<Metrics, 'queueDepth'>;
  readonly logger: Logger;
  /**
   * Executions changed more recently than this are left alone: a submit takes its place before
   * inserting the record, so a younger one may be mid-submit. One lease is enough.
   */
  readonly graceMs: number;
  /**
   * Whether the execution's owner actor runs on this worker: such an execution is never orphaned,
   * whatever its lease says (overload can delay a renewal past the lease). Absent: never.
   */
  readonly runningHere?: (executionId: string) => boolean;
  /** True when no other worker can exist (embedded mode): at start every live execution is orphaned. */
  readonly soleWorker: boolean;
  /** Most live executions looked at per scan. Default 1000. */
  readonly batch?: number;
  /** Executions recovered at once. Default 32. */
  readonly parallel?: number;
}

const DEFAULT_PARALLEL = 32;

/**
 * One scan; `first` is the scan at worker start. Executions are recovered `parallel` at a time;
 * errors of one execution do not stop the others.
 */
export function createRecovery(deps: RecoveryDeps): (first: boolean) => Promise<void> {
  const batch = deps.batch ?? 1_000;
  return async (first) => {
    const live = await deps.executions.listLive(batch);
    deps.metrics.queueDepth(live.filter((e) => e.status === 'PENDING').length);
    const cutoff = first && deps.soleWorker ? Infinity : Date.now() - deps.graceMs;
    const due = live.filter((entry) => entry.updatedAt.getTime() <= cutoff);
    // Several at a time: the store's group commits turn a wave of closes into a few batched
    // statements, so a dead worker's executions close within one scan, not one round trip each.
    let next = 0;
    const lane = async (): Promise<void> => {
      while (next < due.length) {
        const entry = due[next++]!;
        try {
          await recoverOne(deps, entry.id);
        } catch (error) {
          deps.logger.warn({ err: error, executionId: entry.id }, 'recovering an execution failed; retrying on the next scan');
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(deps.parallel ?? DEFAULT_PARALLEL, due.length) }, lane));
  };
}

async function recoverOne(deps: RecoveryDeps, id: string): Promise<void> {
  if (deps.runningHere?.(id) === true) return;
  const record = await deps.executions.getById(id);
  if (record === null || (record.status !== 'PENDING' && record.status !== 'RUNNING')) return;
  const state = await deps.concurrency.state(record.accountId, id);
  if (record.status === 'RUNNING') {
    if (state === 'running') return;
    const now = Date.now();
    const failed = await deps.executions.transition(id, ['RUNNING'], 'FAILED', {
      error: { code: EXECUTION_INTERRUPTED, message: 'The worker running this execution stopped before it finished; its agent calls were not completed' },
      completedAt: new Date(now).toISOString(),
      actualDurationMs: record.startedAt === null ? 0 : Math.max(0, now - Date.parse(record.startedAt)),
      progress: record.progress === null ? null : { ...record.progress, currentAgent: null, runningAgents: [] },
    });
    if (failed === null) return; // another worker, or the owner after all, closed it first
    deps.logger.warn({ executionId: id }, 'execution owner gone; marked FAILED EXECUTION_INTERRUPTED');
    // The dead owner may not have enqueued `execution.started` yet: enqueue it first (skipped if
    // it was), so a receiver never sees `failed` without `started` before it.
    deps.events.replayed?.(record);
    deps.events.transitioned(failed);
    deps.concurrency.release(record.accountId, id);
    return;
  }
  if (state === 'running' || state === 'queued') return;
  const account = await deps.concurrency.limits(record.accountId);
  if (account === null) return;
  const acquisition = await deps.concurrency.acquire(record.accountId, id, { limits: account.limits });
  if (acquisition.status === 'started') {
    deps.logger.info({ executionId: id }, 'pending execution had lost its start; starting it here');
    deps.start(record);
  } else if (acquisition.status === 'queued') {
    deps.logger.info({ executionId: id, position: acquisition.position }, 'pending execution had lost its queue place; queued again');
  }
  // 'full': it was accepted, so it is not refused now; the next scan asks again.
}
