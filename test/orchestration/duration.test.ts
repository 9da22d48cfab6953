import t from 'tap';
import { planDagOrThrow } from '../../src/logic/orchestration/dag.js';
import { DEFAULT_LATENCY_ESTIMATE_MS, estimateDurationMs } from '../../src/logic/orchestration/duration.js';

const agents = [
  { agentId: 'a', latencyMs: 1_000 },
  { agentId: 'b', latencyMs: 3_000 },
  { agentId: 'c', latencyMs: 500 },
];

t.test('SEQUENTIAL takes the sum of the agents latencies', async (t) => {
  t.equal(estimateDurationMs('SEQUENTIAL', agents), 4_500);
});

t.test('PARALLEL takes the slowest agent', async (t) => {
  t.equal(estimateDurationMs('PARALLEL', agents), 3_000);
});

t.test('DAG takes the critical path through the dependencies', async (t) => {
  // a → c and b run side by side: a+c = 1500, b = 3000; then d waits for both.
  const withD = [...agents, { agentId: 'd', latencyMs: 200 }];
  const plan = planDagOrThrow(['a', 'b', 'c', 'd'], { c: ['a'], d: ['c', 'b'] });
  t.equal(estimateDurationMs('DAG', withD, { plan }), 3_200);
});

t.test('DAG with a long chain is slower than its slowest node', async (t) => {
  const plan = planDagOrThrow(['a', 'b', 'c'], { b: ['a'], c: ['b'] });
  t.equal(estimateDurationMs('DAG', agents, { plan }), 4_500);
});

t.test('DAG without dependencies estimates like PARALLEL', async (t) => {
  const plan = planDagOrThrow(['a', 'b', 'c'], undefined);
  t.equal(estimateDurationMs('DAG', agents, { plan }), 3_000);
});

t.test('an agent without statistics is assumed to take the default latency', async (t) => {
  t.equal(estimateDurationMs('SEQUENTIAL', [{ agentId: 'new', latencyMs: undefined }, { agentId: 'a', latencyMs: 100 }]), DEFAULT_LATENCY_ESTIMATE_MS + 100);
  t.equal(estimateDurationMs('PARALLEL', [{ agentId: 'new', latencyMs: Number.NaN }], { defaultLatencyMs: 700 }), 700);
});

t.test('a custom aggregator adds its own call after the agents', async (t) => {
  t.equal(estimateDurationMs('PARALLEL', agents, { aggregatorLatencyMs: 250 }), 3_250);
});

t.test('estimates are whole milliseconds', async (t) => {
  t.equal(estimateDurationMs('SEQUENTIAL', [{ agentId: 'a', latencyMs: 10.4 }, { agentId: 'b', latencyMs: 10.4 }]), 21);
});

t.test('a DAG estimate without a plan is a programming error', async (t) => {
  t.throws(() => estimateDurationMs('DAG', agents), TypeError);
});
