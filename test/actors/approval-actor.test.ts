/** ApprovalActor with a manual clock: expiry, a decision winning the race, and stop. */
import t from 'tap';
import { approvalActor } from '../../src/actors/approval-actor.js';
import { createManualClock, silentLogger, spawnActor, spawnStateless, start, stop } from '../../src/actors/kit/index.js';
import type { WorkflowRunMessage } from '../../src/actors/workflow-run-protocol.js';
import type { ApprovalRecord, ApprovalStatus } from '../../src/domain/workflows.js';

function fakeApprovals(status: ApprovalStatus = 'pending', reason: string | null = null) {
  const record = {
    id: 'apr_1',
    executionId: 'exec_1',
    accountId: 'acct_1',
    workflowSlug: 'w',
    toolCall: { id: 'c', name: 't', input: {} },
    status,
    reason,
    requestedAt: new Date(0),
    expiresAt: new Date(0),
    decidedAt: null,
  };
  let current: ApprovalRecord = record;
  return {
    get current() {
      return current;
    },
    decide(id: string, next: Exclude<ApprovalStatus, 'pending'>, why: string | null) {
      if (current.status !== 'pending') return Promise.resolve(null);
      current = { ...current, status: next, reason: why };
      return Promise.resolve(current);
    },
    getById: () => Promise.resolve(current),
    set(next: ApprovalStatus, why: string | null) {
      current = { ...current, status: next, reason: why };
    },
  };
}

function setup(t: { teardown(fn: () => unknown): void }, approvals: ReturnType<typeof fakeApprovals>) {
  const system = start({ name: 'approval-test' });
  t.teardown(() => stop(system));
  const clock = createManualClock();
  const received: WorkflowRunMessage[] = [];
  const run = spawnStateless<WorkflowRunMessage>(system, (msg) => void received.push(msg));
  const spawnIt = () => spawnActor(system, approvalActor({ approvals, logger: silentLogger }, { approvalId: 'apr_1', expiresAtMs: clock.now() + 1_000, run }), { clock });
  return { clock, received, spawnIt };
}

const settle = () => new Promise((r) => setTimeout(r, 20));

t.test('an approval with no decision expires at its deadline and tells its run once', async (t) => {
  const approvals = fakeApprovals();
  const { clock, received, spawnIt } = setup(t, approvals);
  spawnIt();
  clock.advance(999);
  await settle();
  t.equal(received.length, 0, 'not before the deadline');
  clock.advance(1);
  await settle();
  t.same(received, [{ type: 'workflowRun.approvalResolved', approvalId: 'apr_1', decision: 'expired', reason: null }]);
  t.equal(approvals.current.status, 'expired', 'the expiry is recorded');
});

t.test('a decision recorded before the deadline is reported instead of an expiry', async (t) => {
  const approvals = fakeApprovals();
  const { clock, received, spawnIt } = setup(t, approvals);
  spawnIt();
  approvals.set('rejected', 'no');
  clock.advance(1_000);
  await settle();
  t.same(received, [{ type: 'workflowRun.approvalResolved', approvalId: 'apr_1', decision: 'rejected', reason: 'no' }]);
});

t.test('a stopped approval actor never fires', async (t) => {
  const approvals = fakeApprovals();
  const { clock, received, spawnIt } = setup(t, approvals);
  const ref = spawnIt();
  await settle();
  stop(ref);
  await settle();
  clock.advance(5_000);
  await settle();
  t.equal(received.length, 0);
  t.equal(approvals.current.status, 'pending');
  t.equal(clock.pending(), 0, 'its timer was cancelled');
});
