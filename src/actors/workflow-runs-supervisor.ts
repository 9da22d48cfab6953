/**
 * WorkflowRunsSupervisor: one per worker. Spawns a WorkflowRunActor per run this worker owns
 * (new, or resumed from a checkpoint), routes decisions and cancels to it, and when a run actor
 * faults marks the run failed rather than restarting it (a restart would call agents and tools
 * a second time; STYLE habit 9).
 * It tells the worker's slot leases (src/services/limits/lease-keeper.ts) which runs here hold a
 * slot (not the paused or queued ones), so a dead worker's slots are reclaimed (docs/limits.md).
 */
import { isPermanentStoreError } from '../ports/store-errors.js';
import type { SlotLeases } from '../ports/limits.js';
import { createRunEmitter } from '../logic/workflow-events.js';
import { defineActor, dispatch, failFast, reply, spawnActor, withRetries, type ActorKit, type Ref, type ReplyRef, type RetryOptions } from './kit/index.js';
import { closeRun, workflowRunActor, type WorkflowRunDeps } from './workflow-run-actor.js';
import type { DecisionApplied, RunCancelReply, WorkflowRunMessage, WorkflowRunsMessage } from './workflow-run-protocol.js';
import { startRunSpan, withTraceIds } from '../support/telemetry/index.js';
import { ErrorCode } from '../domain/errors.js';

export interface WorkflowRunsSupervisorDeps extends Omit<WorkflowRunDeps, 'onStopped' | 'onHolding'> {
  /** The worker's slot leases: a run holds one while it holds its slot (not while paused or queued). Absent: none (tests). */
  readonly leases?: SlotLeases;
  /** How long a run's failed store call is retried before its actor faults. Default 30 s (the default lease). */
  readonly storeRetryMs?: number;
}

interface State {
  readonly running: Map<string, Ref<WorkflowRunMessage>>;
}

/** Default for `storeRetryMs`: the default lease (BATON_LEASE_MS). */
const DEFAULT_STORE_RETRY_MS = 30_000;

/**
 * The run and approval stores with every write and read a run makes retried while the store
 * fails (an outage, a deadlock victim), within the owner's lease, so a store error delays a run
 * instead of faulting its actor and failing it with INTERNAL_ERROR (docs/orchestration.md).
 */
function retryingStores(deps: WorkflowRunsSupervisorDeps): Pick<WorkflowRunDeps, 'runs' | 'approvals'> {
  const options = (): RetryOptions => ({
    withinMs: deps.storeRetryMs ?? DEFAULT_STORE_RETRY_MS,
    isPermanent: isPermanentStoreError,
    onRetry: (error, attempt, delayMs) => deps.logger.warn({ err: error, attempt, delayMs }, 'workflow store call failed; retrying'),
  });
  return {
    runs: withRetries(deps.runs, ['transition', 'saveCheckpoint'], options),
    approvals: withRetries(deps.approvals, ['create', 'getById', 'cancelPending'], options),
  };
}

export function workflowRunsSupervisor(deps: WorkflowRunsSupervisorDeps) {
  const stores = retryingStores(deps);
  return defineActor<State, WorkflowRunsMessage>({
    init: () => {
      return { running: new Map() };
    },
    handle: (state, msg, kit) => {
      switch (msg.type) {
        case 'workflowRuns.start': {
          const id = msg.record.id;
          if (state.running.has(id)) return state;
          const self = kit.self;
          // The run's span continues the starting request's trace; its logs carry the trace id.
          const span = startRunSpan('workflow', msg.record, msg.traceparent, { 'baton.workflow.slug': msg.record.workflow.slug });
          const logger = withTraceIds(deps.logger, span);
          if (span !== null) logger.info({ executionId: id }, msg.resume ? 'workflow run resuming' : 'workflow run starting');
          const ref = spawnActor(
            kit.self,
            workflowRunActor(
              {
                ...deps,
                ...stores,
                logger,
                onStopped: (executionId) => dispatch(self, { type: 'workflowRuns.finished', executionId }),
                onHolding: (executionId, accountId, holding) => dispatch(self, { type: 'workflowRuns.holding', executionId, accountId, holding }),
              },
              msg.record,
              span,
            ),
            {
              name: id,
              clock: kit.clock,
              onCrash: failFast({ logger: deps.logger, onFailed: (failure) => void markFaulted(deps, id, msg.record.accountId, failure.error) }),
            },
          );
          state.running.set(id, ref);
          dispatch(ref, msg.resume ? { type: 'workflowRun.resume' } : { type: 'workflowRun.start', queued: msg.queued === true });
          return state;
        }
        case 'workflowRuns.decision': {
          const ref = state.running.get(msg.executionId);
          if (ref === undefined) reply(msg.replyTo, { type: 'workflowRuns.notHere' });
          else dispatch(ref, { type: 'workflowRun.decision', approvalId: msg.approvalId, replyTo: msg.replyTo as ReplyRef<DecisionApplied> });
          return state;
        }
        case 'workflowRuns.cancel': {
          const ref = state.running.get(msg.executionId);
          if (ref === undefined) reply(msg.replyTo, { type: 'workflowRuns.notHere' });
          else dispatch(ref, { type: 'workflowRun.cancel', replyTo: msg.replyTo as ReplyRef<RunCancelReply> });
          return state;
        }
        case 'workflowRuns.slot': {
          const ref = state.running.get(msg.executionId);
          if (ref === undefined) {
            reply(msg.replyTo, { type: 'workflowRuns.notHere' });
            return state;
          }
          dispatch(ref, { type: 'workflowRun.slotGranted' });
          reply(msg.replyTo, { type: 'workflowRuns.slotDelivered' });
          return state;
        }
        case 'workflowRuns.holding':
          if (msg.holding && state.running.has(msg.executionId)) deps.leases?.hold(msg.accountId, msg.executionId);
          else deps.leases?.drop(msg.executionId);
          return state;
        case 'workflowRuns.finished':
          state.running.delete(msg.executionId);
          deps.leases?.drop(msg.executionId);
          return state;
      }
    },
  });
}

async function markFaulted(deps: WorkflowRunsSupervisorDeps, executionId: string, accountId: string, error: unknown): Promise<void> {
  // Ended either way: its slot (or queue place) goes to the next execution.
  deps.slots?.release(accountId, executionId);
  try {
    const emitter = createRunEmitter(deps.events, executionId, 0, deps.logger);
    await closeRun(deps, emitter, executionId, 'failed', { code: ErrorCode.INTERNAL_ERROR, message: 'The workflow stopped on an internal error' }, Date.now());
    deps.logger.error({ executionId, err: error }, 'workflow run actor faulted; run marked failed');
  } catch (storeError) {
    deps.logger.error({ executionId, err: storeError }, 'could not mark a faulted workflow run failed');
  }
}
