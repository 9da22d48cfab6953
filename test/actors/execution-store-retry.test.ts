/**
 * A store that fails for a moment while an execution records its start or its result: the
 * execution actor retries the write and the execution ends with the agents' answers, not FAILED
 * with INTERNAL_ERROR; the agents are called once.
 */
import t, { type Test } from 'tap';
import { executionsSupervisor } from '../../src/actors/executions-supervisor.js';
import { startActorSystem } from '../../src/actors/root-supervisor.js';
import { dispatch } from '../../src/actors/kit/index.js';
import type { ExecutionPatch, ExecutionRecord, ExecutionStatusName } from '../../src/domain/executions.js';
import { eventually, recordingLogger } from './fixtures/helpers.js';

/** In-memory execution store whose transitions fail `failuresPerTransition` times each first. */
class FlakyExecutions {
  readonly rows = new Map<string, ExecutionRecord>();
  readonly attempts = new Map<string, number>();
  constructor(readonly failuresPerTransition: number, readonly error: () => Error) {}

  async transition(id: string, from: readonly ExecutionStatusName[], status: ExecutionStatusName, patch: ExecutionPatch) {
    const key = `${id}:${status}`;
    const attempt = (this.attempts.get(key) ?? 0) + 1;
    this.attempts.set(key, attempt);
    if (attempt <= this.failuresPerTransition) throw this.error();
    const row = this.rows.get(id);
    if (row === undefined || !from.includes(row.status)) return null;
    const next = { ...row, ...patch, status };
    this.rows.set(id, next);
    return next;
  }
  async updateProgress() {}
  async getById(id: string) {
    return this.rows.get(id) ?? null;
  }
}

function record(id: string): ExecutionRecord {
  return {
    id,
    accountId: 'acc_1',
    status: 'PENDING',
    query: 'q',
    context: {},
    mode: 'PARALLEL',
    aggregation: 'merge',
    customAggregator: null,
    dependencies: null,
    selectedAgents: ['a', 'b'].map((agent) => ({ id: agent, name: agent, vertical: 'v', confidence: 0.9, estimatedCostMicros: 1000 })),
    timeoutMs: 5_000,
    maxCostMicros: null,
    fees: { tier: 'DEVELOPER', feeBasisPoints: null },
    webhook: null,
    estimatedCostMicros: 2000,
    estimatedDurationMs: 100,
    progress: null,
    result: null,
    error: null,
    actualCostMicros: null,
    actualDurationMs: null,
    agentsUsed: null,
    createdAt: new Date().toISOString(),
    startedAt: null,
    completedAt: null,
  };
}

function connectionReset(): Error {
  return Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' });
}

async function run(t: Test, store: FlakyExecutions, storeRetryMs: number) {
  const { logger, lines } = recordingLogger();
  const runtime = startActorSystem({ logger });
  t.teardown(() => runtime.stop());
  const calls: string[] = [];
  const transitioned: ExecutionStatusName[] = [];
  const settled: string[] = [];
  const supervisor = runtime.spawnChild(
    executionsSupervisor({
      directory: {
        execute: async (_accountId, agentId) => {
          calls.push(agentId);
          return { ok: true, status: 200, result: { answer: `from ${agentId}` }, metadata: { cost: 0.001, duration: 5 }, streamed: false, durationMs: 5 };
        },
        // Only a custom aggregator asks for an agent's record (its base price); none here.
        visible: () => undefined,
      },
      executions: store,
      events: { transitioned: (r) => transitioned.push(r.status) },
      logger,
      storeRetryMs,
      onSettled: (_accountId, id) => settled.push(id),
    }),
    { name: 'executions' },
  );
  const initial = record('exec_1');
  store.rows.set(initial.id, initial);
  dispatch(supervisor, { type: 'executions.start', record: initial });
  return { calls, transitioned, settled, lines, id: initial.id };
}

t.test('a store failing twice on every transition delays the execution; it still completes with both answers', async (t) => {
  const store = new FlakyExecutions(2, connectionReset);
  const { calls, transitioned, settled, lines, id } = await run(t, store, 5_000);
  await eventually(() => settled.length === 1, 5_000);
  const row = store.rows.get(id)!;
  t.equal(row.status, 'COMPLETED');
  t.same(row.error, null);
  t.match(JSON.stringify(row.result), /from a/);
  t.match(JSON.stringify(row.result), /from b/);
  t.same(calls.sort(), ['a', 'b'], 'each agent called once');
  t.same(transitioned, ['RUNNING', 'COMPLETED']);
  t.equal(lines.filter((l) => /failed; retrying/.test(l.message)).length, 4, 'two retries for the start, two for the result');
  t.notOk(lines.some((l) => /INTERNAL_ERROR|faulted/.test(JSON.stringify(l))), 'no fault');
});

t.test('a permanent store error is not retried: the actor faults at once', async (t) => {
  const store = new FlakyExecutions(1, () => Object.assign(new Error('invalid input syntax'), { code: '22P02' }));
  const { calls, lines } = await run(t, store, 60_000);
  await eventually(() => lines.some((l) => /faulted/.test(l.message)), 3_000);
  t.same(calls, [], 'the run never started');
  t.notOk(lines.some((l) => /retrying/.test(l.message)));
});
