import t from 'tap';
import { aggregatorFailed, canTransition, isCancellable, judgeRun } from '../../src/logic/orchestration/outcome.js';
import { isTerminalExecution } from '../../src/domain/executions.js';
import type { AgentRunResult } from '../../src/domain/orchestration.js';

const ok = (agentId: string): AgentRunResult => ({ agentId, ok: true, output: { summary: agentId }, confidence: 0.8 });
const fail = (agentId: string, message = 'boom'): AgentRunResult => ({ agentId, ok: false, error: { code: 'AGENT_ERROR', message }, confidence: 0.8 });

t.test('PARALLEL with some agents failed completes', async (t) => {
  t.same(judgeRun({ mode: 'PARALLEL', results: [ok('a'), fail('b')], selected: 2 }), { status: 'COMPLETED' });
});

t.test('DAG with a failed branch completes', async (t) => {
  t.same(judgeRun({ mode: 'DAG', results: [ok('a'), fail('b'), fail('c')], selected: 3 }), { status: 'COMPLETED' });
});

t.test('PARALLEL with every agent failed fails with ALL_AGENTS_FAILED and the failures in details', async (t) => {
  const verdict = judgeRun({ mode: 'PARALLEL', results: [fail('a', 'down'), fail('b', 'slow')], selected: 2 });
  t.equal(verdict.status, 'FAILED');
  if (verdict.status !== 'FAILED') return;
  t.equal(verdict.error.code, 'ALL_AGENTS_FAILED');
  t.match(verdict.error.message, /a: down; b: slow/);
  t.same(verdict.result.details, {
    a: { error: { code: 'AGENT_ERROR', message: 'down' } },
    b: { error: { code: 'AGENT_ERROR', message: 'slow' } },
  });
});

t.test('SEQUENTIAL fails at the first failed step', async (t) => {
  const verdict = judgeRun({ mode: 'SEQUENTIAL', results: [ok('a'), fail('b', 'bad input')], selected: 3 });
  t.match(verdict, { status: 'FAILED', error: { code: 'AGENT_FAILED', message: "Step 2 of 3 (agent 'b') failed: bad input" } });
  if (verdict.status === 'FAILED') t.same(Object.keys(verdict.result.details), ['a', 'b']);
});

t.test('SEQUENTIAL with every step done completes', async (t) => {
  t.same(judgeRun({ mode: 'SEQUENTIAL', results: [ok('a'), ok('b')], selected: 2 }), { status: 'COMPLETED' });
});

t.test('a run stopped by its budget fails with that reason even if agents succeeded', async (t) => {
  const verdict = judgeRun({
    mode: 'SEQUENTIAL',
    results: [ok('a')],
    selected: 2,
    stoppedBy: { code: 'BUDGET_REACHED', message: 'maxCost 0.05 USD reached' },
  });
  t.match(verdict, { status: 'FAILED', error: { code: 'BUDGET_REACHED' } });
});

t.test('a run where nothing ran fails', async (t) => {
  t.match(judgeRun({ mode: 'PARALLEL', results: [], selected: 2 }), { status: 'FAILED', error: { code: 'ALL_AGENTS_FAILED', message: 'No agent ran' } });
});

t.test('a failed custom aggregator fails the execution naming it', async (t) => {
  const verdict = aggregatorFailed('judge', { code: 'timeout', message: 'no answer in 30000 ms' }, [ok('a')]);
  t.match(verdict, { status: 'FAILED', error: { code: 'AGGREGATOR_FAILED', message: "Aggregator agent 'judge' failed: no answer in 30000 ms" } });
});

t.test('only PENDING and RUNNING executions can be cancelled', async (t) => {
  t.equal(isCancellable('PENDING'), true);
  t.equal(isCancellable('RUNNING'), true);
  t.equal(isCancellable('COMPLETED'), false);
  t.equal(isCancellable('CANCELLED'), false);
});

t.test('terminal states have no way out', async (t) => {
  t.equal(isTerminalExecution('FAILED'), true);
  t.equal(isTerminalExecution('RUNNING'), false);
  const statuses = ['PENDING', 'RUNNING', 'COMPLETED', 'FAILED', 'CANCELLED'] as const;
  for (const from of statuses) {
    const exits = statuses.filter((to) => canTransition(from, to));
    t.equal(exits.length === 0, isTerminalExecution(from), `${from}: terminal exactly when nothing follows it`);
  }
  t.equal(canTransition('COMPLETED', 'RUNNING'), false);
  t.equal(canTransition('PENDING', 'RUNNING'), true);
  t.equal(canTransition('PENDING', 'COMPLETED'), false);
});
