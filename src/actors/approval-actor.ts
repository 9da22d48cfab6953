/**
 * ApprovalActor: one per pending approval, a child of its WorkflowRunActor. It holds the keyed
 * expiry timer (armed from the stored `expiresAt`, so a re-armed timer after a restart keeps the
 * original deadline). On expiry it records `expired` with a conditional update; if a decision
 * won that race, it reports the decision instead. Either way it tells its run once and stops.
 */
import type { ApprovalStore } from '../ports/approvals.js';
import { defineActor, dispatch, type KitLogger, type Ref } from './kit/index.js';
import type { ApprovalMessage, WorkflowRunMessage } from './workflow-run-protocol.js';

export interface ApprovalActorDeps {
  readonly approvals: Pick<ApprovalStore, 'decide' | 'getById'>;
  readonly logger: KitLogger;
}

export interface ApprovalTarget {
  readonly approvalId: string;
  readonly expiresAtMs: number;
  readonly run: Ref<WorkflowRunMessage>;
}

interface State {
  done: boolean;
}

export function approvalActor(deps: ApprovalActorDeps, target: ApprovalTarget) {
  return defineActor<State, ApprovalMessage>({
    init: (kit) => {
      kit.timers.start('expire', Math.max(0, target.expiresAtMs - kit.clock.now()), (timer) => ({ type: 'approval.expire', timer }));
      return { done: false };
    },
    handle: async (state, msg, kit) => {
      if (state.done) return state;
      if (msg.type === 'approval.stop') {
        state.done = true;
        kit.stopSelf();
        return state;
      }
      state.done = true;
      const expired = await deps.approvals.decide(target.approvalId, 'expired', null, new Date(kit.clock.now()));
      if (expired !== null) {
        dispatch(target.run, { type: 'workflowRun.approvalResolved', approvalId: target.approvalId, decision: 'expired', reason: null });
      } else {
        // Decided meanwhile; its broadcast may be lost (the deciding worker's owner view was stale), so report it here too.
        const current = await deps.approvals.getById(target.approvalId);
        if (current !== null && (current.status === 'approved' || current.status === 'rejected' || current.status === 'expired')) {
          dispatch(target.run, { type: 'workflowRun.approvalResolved', approvalId: target.approvalId, decision: current.status, reason: current.reason });
        } else {
          deps.logger.warn({ approvalId: target.approvalId, status: current?.status }, 'approval expiry found no decision to apply');
        }
      }
      kit.stopSelf();
      return state;
    },
  });
}
