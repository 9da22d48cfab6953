/**
 * The execution actor's state machine, in process: an ExecutionsSupervisor on an actor system
 * with a manual clock, agents scripted through the AgentCalls port and an in-memory execution
 * store. Each test looks at what a caller sees: the stored record and its transitions, the
 * webhook-bound transition events, and the calls the agents received.
 */
import t, { type Test } from 'tap';
import { executionsSupervisor } from '../../src/actors/executions-supervisor.js';
import { startActorSystem } from '../../src/actors/root-supervisor.js';
import { ask, createManualClock, dispatch, type ManualClock } from '../../src/actors/kit/index.js';
import type { CancelReply } from '../../src/actors/execution-protocol.js';
import type { ExecutionRecord, ExecutionStatusName } from '../../src/domain/executions.js';
import { MemoryExecutions, pendingExecution } from '../helpers/memory-executions.js';
import { answer, failure, neverAnswers, ScriptedAgents, type AgentScript } from '../helpers/scripted-agents.js';
import { eventually, recordingLogger, settle } from './fixtures/helpers.js';

interface Started {
  readonly store: MemoryExecutions;
  readonly agents: ScriptedAgents;
  readonly clock: ManualClock;
  /** Statuses handed to the webhook/metrics sink, in order. */
  readonly published: ExecutionStatusName[];
  readonly settled: string[];
  readonly id: string;
  readonly record: () => ExecutionRecord;
  cancel(): Promise<CancelReply | { readonly type: 'executions.notHere' }>;
}

function start(
  t: Test,
  scripts: Readonly<Record<string, AgentScript | readonly AgentScript[]>>,
  overrides: Partial<ExecutionRecord> = {},
  options: { readonly store?: MemoryExecutions; readonly storeRetryMs?: number } = {},
): Started {
  const clock = createManualClock();
  const { logger } = recordingLogger();
  const runtime = startActorSystem({ logger, clock });
  t.teardown(() => runtime.stop());
  const store = options.store ?? new MemoryExecutions();
  const agents = new ScriptedAgents(scripts);
  const published: ExecutionStatusName[] = [];
  const settled: string[] = [];
  const supervisor = runtime.spawnChild(
    executionsSupervisor({
      directory: agents,
      executions: store,
      events: { transitioned: (r) => published.push(r.status) },
      logger,
      deadlineSlackMs: 0,
      storeRetryMs: options.storeRetryMs ?? 2_000,
      onSettled: (_accountId, id) => settled.push(id),
    }),
    { name: 'executions' },
  );
  const initial = store.add(pendingExecution('exec_1', Object.keys(scripts), overrides));
  dispatch(supervisor, { type: 'executions.start', record: initial });
  return {
    store,
    agents,
    clock,
    published,
    settled,
    id: initial.id,
    record: () => store.rows.get(initial.id)!,
    cancel: () => ask(supervisor, (replyTo) => ({ type: 'executions.cancel', executionId: initial.id, replyTo }), 2_000),
  };
}

function isOver(run: Started): () => boolean {
  return () => run.settled.length > 0;
}

/** A script held until `release` is called with the outcome it answers. */
function held(): { readonly script: AgentScript; release(outcome: ReturnType<typeof answer>): void } {
  let release: (outcome: ReturnType<typeof answer>) => void = () => undefined;
  const promise = new Promise<ReturnType<typeof answer>>((resolve) => {
    release = resolve;
  });
  return { script: () => promise, release: (outcome) => release(outcome) };
}

/** Moves the manual clock in steps, letting the actors run between them, until `check` holds. */
async function advanceUntil(clock: ManualClock, check: () => boolean, stepMs: number, maxSteps = 100): Promise<void> {
  for (let i = 0; i < maxSteps && !check(); i++) {
    clock.advance(stepMs);
    await settle(5);
  }
  if (!check()) throw new Error('condition not reached while advancing the clock');
}

function connectionReset(): Error {
  return Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' });
}

t.test('a sequential run gives each agent the previous agent\'s output', async (t) => {
  const run = start(
    t,
    { a: () => answer({ answer: 'from a' }), b: () => answer({ answer: 'from b' }), c: () => answer({ answer: 'from c' }) },
    { mode: 'SEQUENTIAL', context: { user: 'u1' } },
  );
  await eventually(isOver(run));
  t.same(run.agents.called, ['a', 'b', 'c']);
  t.same(run.agents.calls[0]!.context, { user: 'u1' }, 'the first step gets the request context only');
  t.same(run.agents.calls[1]!.context, { user: 'u1', previous: { answer: 'from a' } });
  t.same(run.agents.calls[2]!.context, { user: 'u1', previous: { answer: 'from b' } });
  t.equal(run.record().status, 'COMPLETED');
});

t.test('a parallel run calls every agent at once and reports them all in runningAgents', async (t) => {
  const a = held();
  const b = held();
  const c = held();
  const run = start(t, { a: a.script, b: b.script, c: c.script }, { mode: 'PARALLEL' });
  await eventually(() => run.agents.calls.length === 3);
  t.same(run.record().status, 'RUNNING');
  t.same(run.record().progress, { completed: 0, total: 3, currentAgent: 'a', runningAgents: ['a', 'b', 'c'] }, 'all three in flight before any answered');
  a.release(answer({ answer: 'A' }));
  b.release(answer({ answer: 'B' }));
  c.release(answer({ answer: 'C' }));
  await eventually(isOver(run));
  t.equal(run.record().status, 'COMPLETED');
  t.same(run.record().progress, { completed: 3, total: 3, currentAgent: null, runningAgents: [] });
  t.match(run.record().result!.details, { a: { answer: 'A' }, b: { answer: 'B' }, c: { answer: 'C' } });
});

t.test('a DAG node starts only once its dependencies answered, and receives their outputs', async (t) => {
  const root = held();
  const run = start(
    t,
    { root: root.script, left: () => answer({ answer: 'L' }), right: () => answer({ answer: 'R' }), join: () => answer({ answer: 'J' }) },
    { mode: 'DAG', dependencies: { left: ['root'], right: ['root'], join: ['left', 'right'] } },
  );
  await eventually(() => run.agents.calls.length === 1);
  await settle();
  t.same(run.agents.called, ['root'], 'nothing else starts while the root is running');
  root.release(answer({ answer: 'R0' }));
  await eventually(isOver(run));
  t.same(run.agents.called.slice(1, 3).sort(), ['left', 'right']);
  t.equal(run.agents.called[3], 'join');
  t.same(run.agents.calls[1]!.context, { inputs: { root: { answer: 'R0' } } });
  t.same(run.agents.calls[3]!.context, { inputs: { left: { answer: 'L' }, right: { answer: 'R' } } });
  t.equal(run.record().status, 'COMPLETED');
});

t.test('a DAG node whose dependency failed is not called and is reported DEPENDENCY_FAILED', async (t) => {
  const run = start(
    t,
    { fetch: () => failure('agent_error', 'upstream broke'), summarize: () => answer({ answer: 'S' }), other: () => answer({ answer: 'O' }) },
    { mode: 'DAG', dependencies: { summarize: ['fetch'] } },
  );
  await eventually(isOver(run));
  t.notOk(run.agents.called.includes('summarize'), 'the dependent never ran');
  const record = run.record();
  t.equal(record.status, 'COMPLETED', 'an independent node succeeded');
  t.match(record.result!.details, {
    fetch: { error: { code: 'AGENT_ERROR' } },
    summarize: { error: { code: 'DEPENDENCY_FAILED' } },
    other: { answer: 'O' },
  });
});

t.test('once maxCost is reached no further agent is started and the run fails with BUDGET_REACHED', async (t) => {
  const run = start(
    t,
    { a: () => answer({ answer: 'A' }, 0.001), b: () => answer({ answer: 'B' }, 0.001) },
    { mode: 'SEQUENTIAL', maxCostMicros: 1_500, fees: { tier: 'ENTERPRISE', feeBasisPoints: 0 } },
  );
  await eventually(isOver(run));
  t.same(run.agents.called, ['a'], 'b would have gone over the cap');
  t.equal(run.record().status, 'FAILED');
  t.equal(run.record().error?.code, 'BUDGET_REACHED');
  t.equal(run.record().actualCostMicros, 1_000, 'only what a reported is charged');
});

t.test('a sequential step that times out fails the run with AGENT_FAILED, the step\'s detail saying AGENT_TIMEOUT', async (t) => {
  const run = start(t, { a: () => failure('timeout', 'no answer within 5000 ms'), b: () => answer({ answer: 'B' }) }, { mode: 'SEQUENTIAL' });
  await eventually(isOver(run));
  t.same(run.agents.called, ['a'], 'the run stops at the failed step');
  const record = run.record();
  t.equal(record.status, 'FAILED');
  t.equal(record.error?.code, 'AGENT_FAILED');
  t.match(record.error?.message, /Step 1 of 2 \(agent 'a'\)/);
  t.match(record.result!.details, { a: { error: { code: 'AGENT_TIMEOUT' } } });
});

t.test('when every parallel agent fails the execution fails with ALL_AGENTS_FAILED', async (t) => {
  const run = start(t, { a: () => failure('timeout'), b: () => failure('agent_error'), c: () => failure('refused') }, { mode: 'PARALLEL' });
  await eventually(isOver(run));
  const record = run.record();
  t.equal(record.status, 'FAILED');
  t.equal(record.error?.code, 'ALL_AGENTS_FAILED');
  t.match(record.result!.details, { a: { error: { code: 'AGENT_TIMEOUT' } }, b: { error: { code: 'AGENT_ERROR' } }, c: { error: { code: 'AGENT_REFUSED' } } });
});

t.test('a cancel mid-run records CANCELLED and no further agent is called', async (t) => {
  const first = held();
  const run = start(t, { a: first.script, b: () => answer({ answer: 'B' }) }, { mode: 'SEQUENTIAL' });
  await eventually(() => run.agents.calls.length === 1);
  const replied = await run.cancel();
  t.equal(replied.type, 'execution.cancelReply');
  t.equal((replied as CancelReply).record?.status, 'CANCELLED');
  first.release(answer({ answer: 'A, too late' }));
  await settle();
  t.same(run.agents.called, ['a'], 'b is never called');
  t.equal(run.record().status, 'CANCELLED');
  t.same(run.published, ['RUNNING', 'CANCELLED']);
});

t.test('an agent that never answers ends the run at its overall deadline with EXECUTION_TIMEOUT', async (t) => {
  const run = start(t, { slow: neverAnswers, quick: () => answer({ answer: 'Q' }) }, { mode: 'PARALLEL', timeoutMs: 5_000 });
  await eventually(() => run.record().status === 'RUNNING' && run.agents.calls.length === 2);
  await settle();
  t.equal(run.record().status, 'RUNNING', 'still running before the deadline');
  // PARALLEL: one agent timeout for the calls, one more for the aggregation, no slack.
  run.clock.advance(9_999);
  await settle();
  t.equal(run.record().status, 'RUNNING', 'not a millisecond early');
  run.clock.advance(1);
  await eventually(isOver(run));
  t.equal(run.record().status, 'FAILED');
  t.equal(run.record().error?.code, 'EXECUTION_TIMEOUT');
});

t.test('a result write that keeps failing ends the execution FAILED once the retry window is spent, not retrying forever', async (t) => {
  const store = new MemoryExecutions();
  store.failTransition = (status) => (status === 'COMPLETED' ? connectionReset() : null);
  const run = start(t, { a: () => answer({ answer: 'A' }) }, {}, { store, storeRetryMs: 2_000 });
  await eventually(() => store.attempts('COMPLETED') === 1);
  await advanceUntil(run.clock, isOver(run), 250);
  const record = run.record();
  t.equal(record.status, 'FAILED');
  t.equal(record.error?.code, 'INTERNAL_ERROR');
  const attempts = store.attempts('COMPLETED');
  t.ok(attempts > 2, `retried while the window lasted (${attempts} attempts)`);
  run.clock.advance(60_000);
  await settle();
  t.equal(store.attempts('COMPLETED'), attempts, 'no attempt after giving up');
  t.same(run.published, ['RUNNING', 'FAILED']);
});

t.test('a faulted execution is not restarted: each agent was called once and it stays FAILED', async (t) => {
  const store = new MemoryExecutions();
  // A permanent error (here Postgres' invalid_text_representation) is not retried: the actor faults.
  store.failTransition = (status) => (status === 'COMPLETED' ? Object.assign(new Error('invalid input syntax'), { code: '22P02' }) : null);
  const run = start(t, { a: () => answer({ answer: 'A' }), b: () => answer({ answer: 'B' }) }, { mode: 'PARALLEL' }, { store });
  await eventually(isOver(run));
  run.clock.advance(600_000);
  await settle();
  t.same(run.agents.called.sort(), ['a', 'b'], 'no second run of the agents');
  t.equal(store.attempts('RUNNING'), 1, 'the run was not started again');
  t.equal(store.attempts('COMPLETED'), 1, 'the permanent error was not retried');
  t.equal(run.record().status, 'FAILED');
  t.equal(run.record().error?.code, 'INTERNAL_ERROR');
});

t.test('transitions are written in order PENDING → RUNNING → COMPLETED, each published once', async (t) => {
  const run = start(t, { a: () => answer({ answer: 'A' }) });
  await eventually(isOver(run));
  t.same(
    run.store.transitions.map((x) => x.status),
    ['RUNNING', 'COMPLETED'],
  );
  const [running, completed] = run.store.transitions;
  t.type(running!.patch.startedAt, 'string', 'RUNNING records when it started');
  t.same(running!.patch.progress, { completed: 0, total: 1, currentAgent: 'a', runningAgents: ['a'] });
  t.type(completed!.patch.completedAt, 'string');
  t.same(completed!.patch.error, null);
  t.equal(completed!.patch.agentsUsed, 1);
  t.same(run.published, ['RUNNING', 'COMPLETED']);
  t.same(run.settled, [run.id], 'its slot is given back once');
});

