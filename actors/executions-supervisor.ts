/**
 * ExecutionsSupervisor: one per worker. Spawns an ExecutionActor per execution this worker owns,
 * routes cancels to it, and when an execution actor faults marks the execution FAILED instead of
 * restarting it (a restart would call non-idempotent agents a second time; STYLE habit 9).
 */
import type { ExecutionStore } from '../src/stores/ports.js';
import { executionActor, type ExecutionDeps } from './execution-actor.js';
import type { CancelReply, ExecutionMessage, ExecutionsMessage } from './execution-protocol.js';
import { defineActor, dispatch, failFast, reply, spawnActor, type Ref } from './kit/index.js';

export interface ExecutionsSupervisorDeps extends Omit<ExecutionDeps, 'onStopped'> {
  readonly executions: Pick<ExecutionStore, 'transition' | 'updateProgress'>;
}

interface State {
  readonly running: Map<string, Ref<ExecutionMessage>>;
}

export function executionsSupervisor(deps: ExecutionsSupervisorDeps) {
  return defineActor<State, ExecutionsMessage>({
    init: () => ({ running: new Map() }),
    handle: (state, msg, kit) => {
      switch (msg.type) {
        case 'executions.start': {
          const id = msg.record.id;
          if (state.running.has(id)) return state;
          const self = kit.self;
          const ref = spawnActor(kit.self, executionActor({ ...deps, onStopped: (executionId) => dispatch(self, { type: 'executions.finished', executionId }) }, msg.record), {
            name: id,
            onCrash: failFast({ logger: deps.logger, onFailed: (failure) => void markFaulted(deps, failure.path.split('/').at(-1) ?? id, failure.error) }),
          });
          state.running.set(id, ref);
          dispatch(ref, { type: 'execution.run' });
          return state;
        }
        case 'executions.cancel': {
          const ref = state.running.get(msg.executionId);
          if (ref === undefined) {
            reply(msg.replyTo, { type: 'executions.notHere' });
            return state;
          }
          dispatch(ref, { type: 'execution.cancel', replyTo: msg.replyTo as Parameters<typeof reply<CancelReply>>[0] });
          return state;
        }
        case 'executions.finished':
          state.running.delete(msg.executionId);
          return state;
      }
    },
  });
}

async function markFaulted(deps: ExecutionsSupervisorDeps, executionId: string, error: unknown): Promise<void> {
  try {
    const failed = await deps.executions.transition(executionId, ['PENDING', 'RUNNING'], 'FAILED', {
      error: { code: 'INTERNAL_ERROR', message: 'The execution stopped on an internal error' },
      completedAt: new Date().toISOString(),
    });
    if (failed !== null) deps.events.transitioned(failed);
    deps.logger.error({ executionId, err: error }, 'execution actor faulted; execution marked FAILED');
  } catch (storeError) {
    deps.logger.error({ executionId, err: storeError }, 'could not mark a faulted execution FAILED');
  }
}

