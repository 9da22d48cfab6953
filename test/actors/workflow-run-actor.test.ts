/**
 * The workflow run actor's agent loop, in process: a WorkflowRunsSupervisor on an actor system
 * with a manual clock, the step's agent scripted through the AgentCalls port, tools, slots, the
 * run and approval stores and the event stream as fakes. Each test looks at what a user sees:
 * the events appended to the run's stream, the stored run and approvals, what the agent and the
 * tools received, and when the run held its concurrency slot.
 */
import t, { type Test } from 'tap';
import { workflowRunsSupervisor } from '../../src/actors/workflow-runs-supervisor.js';
import { startActorSystem } from '../../src/actors/root-supervisor.js';
import { ask, createManualClock, dispatch, type ManualClock } from '../../src/actors/kit/index.js';
import type { WorkflowDefinition, WorkflowRunRecord } from '../../src/domain/workflows.js';
import { MemoryApprovals } from '../helpers/memory-approvals.js';
import { MemoryWorkflowRuns, runningRun } from '../helpers/memory-workflow-runs.js';
import { RecordedEvents } from '../helpers/recorded-events.js';
import { RecordedTools } from '../helpers/recorded-tools.js';
import { RecordingSlots } from '../helpers/recording-slots.js';
import { answer, failure, ScriptedAgents, type AgentScript } from '../helpers/scripted-agents.js';
import { eventually, recordingLogger, settle } from './fixtures/helpers.js';

const APPROVAL_TIMEOUT_MS = 60_000;

function workflow(overrides: Partial<WorkflowDefinition> = {}): WorkflowDefinition {
  return {
    slug: 'pay-bills',
    name: 'Pay bills',
    steps: [
      {
        id: 'pay',
        agent: 'clerk',
        tools: [
          { name: 'lookup', url: 'http://tools.test/lookup', risk: 'low', description: 'find a bill' },
          { name: 'transfer', url: 'http://tools.test/transfer', risk: 'high' },
        ],
      },
    ],
    approvalTimeoutMs: APPROVAL_TIMEOUT_MS,
    ...overrides,
  };
}

const callLookup = () => answer({ toolCalls: [{ id: 'c1', name: 'lookup', input: { bill: 7 } }] });
const callTransfer = () => answer({ toolCalls: [{ id: 'c2', name: 'transfer', input: { amount: 120 } }] });
const finalAnswer = (text: string) => () => answer({ answer: text });

interface Harness {
  readonly clock: ManualClock;
  readonly agents: ScriptedAgents;
  readonly tools: RecordedTools;
  readonly slots: RecordingSlots;
  readonly runs: MemoryWorkflowRuns;
  readonly approvals: MemoryApprovals;
  readonly events: RecordedEvents;
  readonly id: string;
  readonly finished: () => boolean;
  record(): WorkflowRunRecord;
  /** Paused on an approval: requested, checkpointed and its expiry timer armed. */
  paused(): boolean;
  /** Records a decision as the service does, then tells the owner and waits for it to apply it. */
  decide(decision: 'approved' | 'rejected', reason?: string): Promise<unknown>;
  cancel(): Promise<unknown>;
  grantSlot(): Promise<unknown>;
}

function start(t: Test, clerk: readonly AgentScript[], definition: WorkflowDefinition = workflow()): Harness {
  const clock = createManualClock();
  const { logger } = recordingLogger();
  const runtime = startActorSystem({ logger, clock });
  t.teardown(() => runtime.stop());
  const agents = new ScriptedAgents({ clerk });
  const tools = new RecordedTools();
  const slots = new RecordingSlots();
  const runs = new MemoryWorkflowRuns();
  const approvals = new MemoryApprovals();
  const events = new RecordedEvents();
  const supervisor = runtime.spawnChild(
    workflowRunsSupervisor({
      directory: agents,
      runs,
      approvals,
      events,
      tools,
      slots,
      metrics: { approvalRequested: () => undefined, approvalDecided: () => undefined },
      logger,
    }),
    { name: 'workflow-runs' },
  );
  const initial = runs.add(runningRun('exec_w1', definition, 'pay the electricity bill'));
  // As the service does: it took the slot before recording the run.
  dispatch(supervisor, { type: 'workflowRuns.start', record: initial, resume: false, queued: false });
  const approvalId = () => approvals.all[0]!.id;
  return {
    clock,
    agents,
    tools,
    slots,
    runs,
    approvals,
    events,
    id: initial.id,
    finished: () => events.types.includes('done'),
    record: () => runs.rows.get(initial.id)!,
    paused: () => approvals.all.some((a) => a.status === 'pending') && clock.pending() > 0,
    decide: async (decision, reason) => {
      await approvals.decide(approvalId(), decision, reason ?? null, new Date(clock.now()));
      return ask(supervisor, (replyTo) => ({ type: 'workflowRuns.decision', executionId: initial.id, approvalId: approvalId(), replyTo }), 2_000);
    },
    cancel: () => ask(supervisor, (replyTo) => ({ type: 'workflowRuns.cancel', executionId: initial.id, replyTo }), 2_000),
    grantSlot: () => ask(supervisor, (replyTo) => ({ type: 'workflowRuns.slot', executionId: initial.id, replyTo }), 2_000),
  };
}

t.test('a step calls its agent with the task and the step\'s tools, and its answer completes the run', async (t) => {
  const run = start(t, [finalAnswer('paid')]);
  await eventually(run.finished);
  t.equal(run.agents.calls.length, 1);
  const call = run.agents.calls[0]!;
  t.equal(call.prompt, 'pay the electricity bill');
  t.match(call.context, {
    tools: [
      { name: 'lookup', risk: 'low', description: 'find a bill' },
      { name: 'transfer', risk: 'high' },
    ],
    history: [],
    toolResults: [],
    step: { id: 'pay', index: 0 },
  });
  t.equal(run.record().status, 'completed');
  t.equal(run.record().finalAnswer, 'paid');
  t.same(run.events.types, ['chunk', 'done']);
  t.match(run.events.events.at(-1)!.data, { status: 'completed', final_answer: 'paid' });
});

t.test('a low-risk tool call runs at once and its result goes back to the agent', async (t) => {
  const run = start(t, [callLookup, finalAnswer('paid')]);
  await eventually(run.finished);
  t.same(run.tools.calls, [{ name: 'lookup', input: { bill: 7 } }]);
  t.equal(run.approvals.all.length, 0, 'no approval asked for');
  t.equal(run.agents.calls.length, 2);
  t.match(run.agents.calls[1]!.context, {
    toolResults: [{ id: 'c1', name: 'lookup', result: { ran: 'lookup' } }],
    history: [{ stepId: 'pay', toolCalls: [{ id: 'c1', name: 'lookup' }] }],
  });
  t.same(run.events.types, ['tool_executing', 'tool_result', 'chunk', 'done']);
});

t.test('a high-risk tool call pauses the run with an approval request and does not run the tool', async (t) => {
  const run = start(t, [callTransfer, finalAnswer('paid')]);
  await eventually(run.paused);
  await settle();
  t.same(run.tools.calls, [], 'nothing transferred');
  t.equal(run.agents.calls.length, 1, 'the agent waits too');
  const approval = run.approvals.all[0]!;
  t.match(approval, { executionId: run.id, workflowSlug: 'pay-bills', status: 'pending', toolCall: { id: 'c2', name: 'transfer', input: { amount: 120 } } });
  t.equal(approval.expiresAt.getTime() - approval.requestedAt.getTime(), APPROVAL_TIMEOUT_MS);
  t.same(run.events.types, ['approval_request']);
  t.match(run.events.events[0]!.data, { approval_id: approval.id, tool_name: 'transfer', tool_call_id: 'c2', expires_at: approval.expiresAt.toISOString() });
  t.equal(run.record().status, 'running');
  t.equal(run.record().checkpoint?.approvalId, approval.id, 'checkpointed so any worker can resume it');
});

t.test('approving resumes the run: the tool runs and the agent receives its result', async (t) => {
  const run = start(t, [callTransfer, finalAnswer('paid')]);
  await eventually(run.paused);
  const applied = await run.decide('approved');
  t.match(applied, { type: 'workflowRun.decisionApplied' });
  await eventually(run.finished);
  t.same(run.tools.calls, [{ name: 'transfer', input: { amount: 120 } }]);
  t.match(run.agents.calls[1]!.context, { toolResults: [{ id: 'c2', name: 'transfer', result: { ran: 'transfer' } }] });
  t.same(run.events.types, ['approval_request', 'approval_resolved', 'tool_executing', 'tool_result', 'chunk', 'done']);
  t.match(run.events.events[1]!.data, { decision: 'approved' });
  t.equal(run.record().status, 'completed');
  t.equal(run.record().checkpoint, null, 'the checkpoint is cleared');
});

t.test('a rejection reaches the agent as the tool\'s error and the tool never runs', async (t) => {
  const run = start(t, [callTransfer, finalAnswer('not paid')]);
  await eventually(run.paused);
  await run.decide('rejected', 'too expensive');
  await eventually(run.finished);
  t.same(run.tools.calls, []);
  t.match(run.agents.calls[1]!.context, { toolResults: [{ id: 'c2', name: 'transfer', error: 'rejected: too expensive' }] });
  t.match(run.events.events[1], { type: 'approval_resolved', data: { decision: 'rejected', reason: 'too expensive' } });
  t.equal(run.record().status, 'completed');
});

t.test('an approval left undecided past approvalTimeoutMs expires and, with onApprovalTimeout reject, the agent is told', async (t) => {
  const run = start(t, [callTransfer, finalAnswer('gave up on it')], workflow({ onApprovalTimeout: 'reject' }));
  await eventually(run.paused);
  run.clock.advance(APPROVAL_TIMEOUT_MS - 1);
  await settle();
  t.equal(run.approvals.all[0]!.status, 'pending', 'not a millisecond early');
  run.clock.advance(1);
  await eventually(run.finished);
  t.equal(run.approvals.all[0]!.status, 'expired');
  t.same(run.tools.calls, []);
  t.match(run.agents.calls[1]!.context, { toolResults: [{ id: 'c2', name: 'transfer', error: 'expired' }] });
  t.match(run.events.events[1], { type: 'approval_resolved', data: { decision: 'expired' } });
  t.equal(run.record().status, 'completed');
});

t.test('an approval left undecided past approvalTimeoutMs fails the run with APPROVAL_EXPIRED when onApprovalTimeout is fail', async (t) => {
  const run = start(t, [callTransfer, finalAnswer('unused')], workflow({ onApprovalTimeout: 'fail' }));
  await eventually(run.paused);
  run.clock.advance(APPROVAL_TIMEOUT_MS);
  await eventually(run.finished);
  t.same(run.tools.calls, []);
  t.equal(run.agents.calls.length, 1, 'the agent is not called again');
  t.same(run.events.types, ['approval_request', 'approval_resolved', 'error', 'done']);
  t.match(run.events.events[2]!.data, { code: 'APPROVAL_EXPIRED' });
  t.match(run.events.events[3]!.data, { status: 'failed' });
  t.equal(run.record().status, 'failed');
  t.equal(run.record().error?.code, 'APPROVAL_EXPIRED');
});

t.test('a run paused on an approval gives its slot back', async (t) => {
  const run = start(t, [callTransfer, finalAnswer('paid')]);
  await eventually(run.paused);
  t.same(run.slots.log, [`release:${run.id}`]);
});

t.test('after a decision the run takes a slot again before it runs the tool', async (t) => {
  const run = start(t, [callTransfer, finalAnswer('paid')]);
  await eventually(run.paused);
  run.slots.answer = 'queued';
  await run.decide('approved');
  await settle();
  t.same(run.slots.log, [`release:${run.id}`, `acquire:${run.id}`]);
  t.same(run.tools.calls, [], 'queued for a slot: the tool waits');
  t.match(await run.grantSlot(), { type: 'workflowRuns.slotDelivered' });
  await eventually(run.finished);
  t.same(run.tools.calls, [{ name: 'transfer', input: { amount: 120 } }]);
  await eventually(() => run.slots.log.length === 3);
  t.same(run.slots.log, [`release:${run.id}`, `acquire:${run.id}`, `release:${run.id}`], 'and gives it back at the end');
});

t.test('events are appended to the run\'s stream in order, with increasing seq', async (t) => {
  const run = start(t, [callLookup, callTransfer, finalAnswer('paid')]);
  await eventually(run.paused);
  await run.decide('approved');
  await eventually(run.finished);
  t.same(run.events.types, [
    'tool_executing',
    'tool_result',
    'approval_request',
    'approval_resolved',
    'tool_executing',
    'tool_result',
    'chunk',
    'done',
  ]);
  t.same(run.events.events.map((e) => e.seq), [1, 2, 3, 4, 5, 6, 7, 8]);
  t.same(new Set(run.events.events.map((e) => e.stream)), new Set([`workflow:${run.id}`]));
  t.equal(run.record().checkpoint, null);
  t.equal(run.runs.checkpoints[0]?.lastSeq, 3, 'the checkpoint remembers where the stream was');
});

t.test('a failing agent ends the run with an error event and done failed', async (t) => {
  const run = start(t, [() => failure('timeout', 'no answer within 30000 ms')]);
  await eventually(run.finished);
  t.same(run.events.types, ['error', 'done']);
  t.match(run.events.events[0]!.data, { code: 'AGENT_TIMEOUT', message: /clerk/ });
  t.match(run.events.events[1]!.data, { status: 'failed', final_answer: null });
  t.equal(run.record().status, 'failed');
  t.equal(run.record().error?.code, 'AGENT_TIMEOUT');
  await eventually(() => run.slots.log.length === 1);
  t.same(run.slots.log, [`release:${run.id}`], 'its slot goes to the next execution');
});

t.test('a cancel ends a paused run: cancelled, its approval cancelled, the tool never run', async (t) => {
  const run = start(t, [callTransfer, finalAnswer('unused')]);
  await eventually(run.paused);
  const replied = await run.cancel();
  t.match(replied, { type: 'workflowRun.cancelReply', record: { status: 'cancelled' } });
  t.equal(run.record().status, 'cancelled');
  t.equal(run.approvals.all[0]!.status, 'cancelled');
  t.same(run.events.types, ['approval_request', 'done']);
  t.match(run.events.events[1]!.data, { status: 'cancelled' });
  run.clock.advance(APPROVAL_TIMEOUT_MS * 2);
  await settle();
  t.same(run.events.types, ['approval_request', 'done'], 'the expiry that would have come changes nothing');
  t.same(run.tools.calls, []);
  t.equal(run.agents.calls.length, 1);
});
