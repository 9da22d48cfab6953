/**
 * WorkflowRunsSupervisor: one per worker. Spawns a WorkflowRunActor per run this worker owns
 * (new, or resumed from a checkpoint), routes decisions and cancels to it, and when a run actor
 * faults marks the run failed rather than restarting it (a restart would call agents and tools
 * a second time; STYLE habit 9).
 */
import { createRunEmitter } from '../src/workflows/events.js';
import { defineActor, dispatch, failFast, reply, spawnActor, type Ref, type ReplyRef } from './kit/index.js';
import { closeRun, workflowRunActor, type WorkflowRunDeps } from './workflow-run-actor.js';
import type { DecisionApplied, RunCancelReply, WorkflowRunMessage, WorkflowRunsMessage } from './workflow-run-protocol.js';

interface State {
  readonly running: Map<string, Ref<WorkflowRunMessage>>;
}

export function workflowRunsSupervisor(deps: Omit<WorkflowRunDeps, 'onStopped'>) {
  return defineActor<State, WorkflowRunsMessage>({
    init: () => ({ running: new Map() }),
    handle: (state, msg, kit) => {
      switch (msg.type) {
        case 'workflowRuns.start': {
          const id = msg.record.id;
          if (state.running.has(id)) return state;
          const self = kit.self;
          const ref = spawnActor(
            kit.self,
            workflowRunActor({ ...deps, onStopped: (executionId) => dispatch(self, { type: 'workflowRuns.finished', executionId }) }, msg.record),
            {
              name: id,
              clock: kit.clock,
              onCrash: failFast({ logger: deps.logger, onFailed: (failure) => void markFaulted(deps, id, failure.error) }),
            },
          );
          state.running.set(id, ref);
          dispatch(ref, msg.resume ? { type: 'workflowRun.resume' } : { type: 'workflowRun.start' });
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
        case 'workflowRuns.finished':
          state.running.delete(msg.executionId);
          return state;
      }
    },
  });
}

async function markFaulted(deps: Omit<WorkflowRunDeps, 'onStopped'>, executionId: string, error: unknown): Promise<void> {
  try {
    const emitter = createRunEmitter(deps.events, executionId, 0, deps.logger);
    await closeRun(deps, emitter, executionId, 'failed', { code: 'INTERNAL_ERROR', message: 'The workflow stopped on an internal error' }, Date.now());
    deps.logger.error({ executionId, err: error }, 'workflow run actor faulted; run marked failed');
  } catch (storeError) {
    deps.logger.error({ executionId, err: storeError }, 'could not mark a faulted workflow run failed');
  }
}
