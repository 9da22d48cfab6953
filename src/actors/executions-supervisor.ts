/**
 * ExecutionsSupervisor: one per worker. Spawns an ExecutionActor per execution this worker owns,
 * routes cancels to it, and when an execution actor faults marks the execution FAILED instead of
 * restarting it (a restart would call non-idempotent agents a second time; STYLE habit 9).
 * It is the owner's heartbeat too: on a keyed timer it renews the concurrency-slot leases of the
 * executions it runs, which is how other workers know the owner is alive (DESIGN §9).
 */
import type { ExecutionStore } from '../ports/executions.js';
import type { SlotLeases } from '../ports/limits.js';
import { executionActor, type ExecutionDeps } from './execution-actor.js';
import type { CancelReply, ExecutionMessage, ExecutionsMessage } from './execution-protocol.js';
import { defineActor, dispatch, failFast, reply, spawnActor, type ActorKit, type Ref } from './kit/index.js';
import { startRunSpan, withTraceIds } from '../support/telemetry/index.js';
import { ErrorCode } from '../domain/errors.js';

export interface ExecutionsSupervisorDeps extends Omit<ExecutionDeps, 'onStopped'> {
  readonly executions: Pick<ExecutionStore, 'transition' | 'updateProgress' | 'getById'>;
  /** The worker's slot leases: each running execution holds its slot while its actor runs. Absent: none (tests). */
  readonly leases?: SlotLeases;
  /** An execution is over (closed here or found closed): its slot may go to the next one. */
  readonly onSettled?: (accountId: string, executionId: string) => void;
  /** An execution actor stopped here, settled or not (shutdown, or another owner runs it). */
  readonly onStopped?: (executionId: string) => void;
  /** Executions running on this worker, after each change. */
  readonly onRunningChanged?: (count: number) => void;
}

interface Running {
  readonly ref: Ref<ExecutionMessage>;
  readonly accountId: string;
}

interface State {
  readonly running: Map<string, Running>;
}

export function executionsSupervisor(deps: ExecutionsSupervisorDeps) {
  return defineActor<State, ExecutionsMessage>({
    init: () => ({ running: new Map() }),
    handle: (state, msg, kit) => {
      switch (msg.type) {
        case 'executions.start': {
          const id = msg.record.id;
          const accountId = msg.record.accountId;
          if (state.running.has(id)) return state;
          const self = kit.self;
          // The run's span continues the submitting request's trace; its logs carry the trace id.
          const span = startRunSpan('orchestration', msg.record, msg.traceparent, { 'baton.execution.mode': msg.record.mode });
          const logger = withTraceIds(deps.logger, span);
          // One line per traced execution ties the execution id to its trace in the logs.
          if (span !== null) logger.info({ executionId: id, accountId }, 'execution starting');
          const ref = spawnActor(
            kit.self,
            executionActor({ ...deps, logger, onStopped: (executionId, settled) => dispatch(self, { type: 'executions.finished', executionId, settled }) }, msg.record, span),
            {
              name: id,
              // The runtime's clock, so the deadline timer and store retries follow an injected one.
              clock: kit.clock,
              onCrash: failFast({ logger: deps.logger, onFailed: (failure) => void markFaulted(deps, failure.path.split('/').at(-1) ?? id, accountId, failure.error) }),
            },
          );
          state.running.set(id, { ref, accountId });
          deps.leases?.hold(accountId, id);
          deps.onRunningChanged?.(state.running.size);
          dispatch(ref, { type: 'execution.run' });
          return state;
        }
        case 'executions.cancel': {
          const running = state.running.get(msg.executionId);
          if (running === undefined) {
            reply(msg.replyTo, { type: 'executions.notHere' });
            return state;
          }
          dispatch(running.ref, { type: 'execution.cancel', replyTo: msg.replyTo as Parameters<typeof reply<CancelReply>>[0] });
          return state;
        }
        case 'executions.finished': {
          const running = state.running.get(msg.executionId);
          state.running.delete(msg.executionId);
          deps.leases?.drop(msg.executionId);
          deps.onStopped?.(msg.executionId);
          deps.onRunningChanged?.(state.running.size);
          if (running !== undefined && msg.settled) deps.onSettled?.(running.accountId, msg.executionId);
          return state;
        }
      }
    },
  });
}

async function markFaulted(deps: ExecutionsSupervisorDeps, executionId: string, accountId: string, error: unknown): Promise<void> {
  try {
    const failed = await deps.executions.transition(executionId, ['PENDING', 'RUNNING'], 'FAILED', {
      error: { code: ErrorCode.INTERNAL_ERROR, message: 'The execution stopped on an internal error' },
      completedAt: new Date().toISOString(),
    });
    if (failed !== null) deps.events.transitioned(failed);
    deps.logger.error({ executionId, err: error }, 'execution actor faulted; execution marked FAILED');
    deps.onSettled?.(accountId, executionId);
  } catch (storeError) {
    deps.logger.error({ executionId, err: storeError }, 'could not mark a faulted execution FAILED');
  }
}
