/**
 * Orchestration end to end over real sockets: a spawned server, agents from the mock fleet
 * registered through the API, executions in each mode and strategy, failures, cancel,
 * idempotency and cost.
 */
import t, { type Test } from 'tap';
import type { MockAgent, MockAgentConfig } from '../fixtures/mock-agent-fleet.js';
import { registerAgents } from '../helpers/agents.js';
import { waitForExecutionEnd } from '../helpers/executions.js';
import { api, createAccountWithKey, startServer } from '../helpers/server.js';

const server = await startServer(t, { mode: 'embedded' });

type Json = Record<string, unknown>;

interface Setup {
  readonly key: string;
  readonly agents: readonly MockAgent[];
}

/** A fresh account with its own agents (private to it), each with a distinct capability. */
async function setup(t: Test, configs: MockAgentConfig[], tier: 'DEVELOPER' | 'BUSINESS' | 'ENTERPRISE' = 'BUSINESS'): Promise<Setup> {
  const { key } = await createAccountWithKey(server, tier);
  return { key, agents: await registerAgents(server, key, configs, t.teardown.bind(t)) };
}


function agent(id: string, extra: Partial<MockAgentConfig> = {}, basePrice = 0.02): MockAgentConfig {
  return {
    info: { id, name: `Agent ${id}`, description: `Does ${id} work`, capabilities: [`cap-${id}`], pricing: { model: 'per_execution', basePrice } },
    ...extra,
  };
}

/** Criteria that select exactly these agents whatever the query's text. */
function only(ids: string[]) {
  return { requiredCapabilities: [], minConfidence: 0, maxAgents: ids.length };
}

const waitForEnd = (key: string, id: string): Promise<Json> => waitForExecutionEnd(server, key, id);

t.test('a parallel execution runs every selected agent and merges their outputs', async (t) => {
  const { key, agents } = await setup(t, [agent('alpha', { output: { answer: 'A' }, cost: 0.03 }), agent('beta', { output: { answer: 'B' }, cost: 0.05 })]);
  const res = await api(server, 'POST', '/v1/orchestrate', {
    key,
    body: { query: 'do alpha and beta work', context: { doc: 'x' }, selectionCriteria: only(['alpha', 'beta']) },
  });
  t.equal(res.status, 202);
  t.match(res.body.executionId, /^exec_/);
  t.equal(res.body.status, 'PENDING');
  t.equal(res.body.mode, 'PARALLEL');
  t.equal(res.body.statusUrl, `${server.url}/v1/executions/${res.body.executionId as string}`);
  t.equal((res.body.selectedAgents as Json[]).length, 2);
  t.equal(res.body.estimatedCost, 0.042, 'two 0.02 base prices plus the 5% BUSINESS fee');
  t.type(res.body.estimatedDuration, 'number');
  const done = await waitForEnd(key, res.body.executionId as string);
  t.equal(done.status, 'COMPLETED');
  const details = (done.result as { details: Json }).details;
  t.same(details.alpha, { answer: 'A' });
  t.same(details.beta, { answer: 'B' });
  t.same(done.metadata, { actualCost: 0.084, actualDuration: (done.metadata as Json).actualDuration, agentsUsed: 2 }, 'reported costs 0.03 + 0.05, plus 5%');
  t.ok(done.startedAt && done.completedAt);
  const received = agents[0]!.requests.find((r) => r.path === '/execute')!.body as { input: Json; metadata: Json };
  t.equal(received.input.prompt, 'do alpha and beta work');
  t.same(received.input.context, { doc: 'x' });
  t.equal(received.metadata.requestId, res.body.executionId);
  t.equal(received.metadata.timeout, 30_000);
});

t.test('a sequential execution passes each agent the previous output', async (t) => {
  const { key, agents } = await setup(t, [agent('first', { output: { step: 1 } }), agent('second', { output: { step: 2 } })]);
  const res = await api(server, 'POST', '/v1/orchestrate', { key, body: { query: 'first then second', mode: 'SEQUENTIAL', selectionCriteria: only(['first', 'second']) } });
  const done = await waitForEnd(key, res.body.executionId as string);
  t.equal(done.status, 'COMPLETED');
  const bodies = agents.map((a) => a.requests.find((r) => r.path === '/execute')!.body as { input: { context: Json } });
  const order = (res.body.selectedAgents as Json[]).map((a) => a.id as string);
  const secondIndex = agents.findIndex((a) => a.info.id === order[1]);
  t.same(bodies[secondIndex]!.input.context.previous, { step: order[0] === 'first' ? 1 : 2 });
});

t.test('a DAG runs a node after its dependencies and gives it their outputs', async (t) => {
  const { key, agents } = await setup(t, [agent('root', { output: { r: 1 }, latencyMs: 50 }), agent('leaf', { output: { l: 2 } })]);
  const res = await api(server, 'POST', '/v1/orchestrate', {
    key,
    body: { query: 'root and leaf', mode: 'DAG', dependencies: { leaf: ['root'] }, selectionCriteria: only(['root', 'leaf']) },
  });
  t.equal(res.status, 202);
  const done = await waitForEnd(key, res.body.executionId as string);
  t.equal(done.status, 'COMPLETED');
  const [root, leaf] = agents;
  const leafCall = leaf!.requests.find((r) => r.path === '/execute')!;
  const rootCall = root!.requests.find((r) => r.path === '/execute')!;
  t.ok(leafCall.receivedAtMs >= rootCall.receivedAtMs + 40, 'leaf waited for root');
  t.same((leafCall.body as { input: { context: Json } }).input.context.inputs, { root: { r: 1 } });
});

t.test('a DAG with a cycle or an unknown id is refused with 400', async (t) => {
  const { key } = await setup(t, [agent('x1'), agent('x2')]);
  const cycle = await api(server, 'POST', '/v1/orchestrate', {
    key,
    body: { query: 'x', mode: 'DAG', dependencies: { x1: ['x2'], x2: ['x1'] }, selectionCriteria: only(['x1', 'x2']) },
  });
  t.equal(cycle.status, 400);
  t.equal(cycle.body.error, 'INVALID_REQUEST');
  t.match(cycle.body.field, /^dependencies/);
  const unknown = await api(server, 'POST', '/v1/orchestrate', {
    key,
    body: { query: 'x', mode: 'DAG', dependencies: { x1: ['nobody'] }, selectionCriteria: only(['x1', 'x2']) },
  });
  t.equal(unknown.status, 400);
});

t.test('one failing agent leaves a parallel execution COMPLETED with the failure listed', async (t) => {
  const { key } = await setup(t, [agent('good', { output: { ok: true } }), agent('bad', { failure: { mode: 'error', error: 'boom', cost: 0.01 } })]);
  const res = await api(server, 'POST', '/v1/orchestrate', { key, body: { query: 'good and bad', selectionCriteria: only(['good', 'bad']) } });
  const done = await waitForEnd(key, res.body.executionId as string);
  t.equal(done.status, 'COMPLETED');
  const details = (done.result as { details: Json }).details;
  t.same(details.good, { ok: true });
  t.match(details.bad, { error: { code: 'AGENT_ERROR', message: /boom/ } });
});

t.test('when every agent fails the execution is FAILED with an error', async (t) => {
  const { key } = await setup(t, [agent('bad1', { failure: { mode: 'garbage' } }), agent('bad2', { failure: { mode: 'error' } })]);
  const res = await api(server, 'POST', '/v1/orchestrate', { key, body: { query: 'bad', selectionCriteria: only(['bad1', 'bad2']) } });
  const done = await waitForEnd(key, res.body.executionId as string);
  t.equal(done.status, 'FAILED');
  t.match(done.error, { code: 'ALL_AGENTS_FAILED' });
  t.match((done.result as { details: Json }).details, { bad1: { error: { code: 'AGENT_INVALID_JSON' } } });
});

t.test('a hanging agent is cut off by the request timeout', async (t) => {
  const { key } = await setup(t, [agent('slow', { failure: { mode: 'hang' } }), agent('quick', { output: { fast: true } })]);
  const res = await api(server, 'POST', '/v1/orchestrate', { key, body: { query: 'slow', timeoutMs: 1000, selectionCriteria: only(['slow', 'quick']) } });
  const done = await waitForEnd(key, res.body.executionId as string);
  t.equal(done.status, 'COMPLETED');
  t.match((done.result as { details: Json }).details, { slow: { error: { code: 'AGENT_TIMEOUT' } }, quick: { fast: true } });
});

t.test('cancelling a running execution aborts it; cancelling again is 409', async (t) => {
  const { key } = await setup(t, [agent('sleepy', { latencyMs: 5_000 })]);
  const res = await api(server, 'POST', '/v1/orchestrate', { key, body: { query: 'sleep', selectionCriteria: only(['sleepy']) } });
  const id = res.body.executionId as string;
  await new Promise((r) => setTimeout(r, 200));
  const cancelled = await api(server, 'POST', `/v1/executions/${id}/cancel`, { key });
  t.equal(cancelled.status, 200);
  t.equal(cancelled.body.status, 'CANCELLED');
  t.equal((await api(server, 'GET', `/v1/executions/${id}`, { key })).body.status, 'CANCELLED');
  const again = await api(server, 'POST', `/v1/executions/${id}/cancel`, { key });
  t.equal(again.status, 409);
  t.equal(again.body.error, 'EXECUTION_NOT_CANCELLABLE');
});

t.test("another account's execution is 404", async (t) => {
  const { key } = await setup(t, [agent('mine')]);
  const res = await api(server, 'POST', '/v1/orchestrate', { key, body: { query: 'mine', selectionCriteria: only(['mine']) } });
  const other = await createAccountWithKey(server);
  const read = await api(server, 'GET', `/v1/executions/${res.body.executionId as string}`, { key: other.key });
  t.equal(read.status, 404);
  t.equal(read.body.error, 'EXECUTION_NOT_FOUND');
  t.equal((await api(server, 'POST', `/v1/executions/${res.body.executionId as string}/cancel`, { key: other.key })).status, 404);
});

t.test('an idempotent retry returns the first answer and creates nothing', async (t) => {
  const { key, agents } = await setup(t, [agent('once')]);
  const body = { query: 'only once', selectionCriteria: only(['once']) };
  const headers = { 'x-idempotency-key': 'order-123' };
  const first = await api(server, 'POST', '/v1/orchestrate', { key, body, headers });
  const second = await api(server, 'POST', '/v1/orchestrate', { key, body, headers });
  t.equal(second.status, 202);
  t.same(second.body, first.body);
  await waitForEnd(key, first.body.executionId as string);
  t.equal(agents[0]!.requests.filter((r) => r.path === '/execute').length, 1);
  const reused = await api(server, 'POST', '/v1/orchestrate', { key, body: { ...body, query: 'something else' }, headers });
  t.equal(reused.status, 422);
  t.equal(reused.body.error, 'IDEMPOTENCY_KEY_REUSED');
});

t.test("a refusal is the key's answer: a retry with the same key gets it again, status and body", async (t) => {
  const { key } = await setup(t, [agent('early')]);
  const body = { query: 'needs a late capability', selectionCriteria: { requiredCapabilities: ['cap-late'], minConfidence: 0 } };
  const headers = { 'x-idempotency-key': 'refused-once' };
  const first = await api(server, 'POST', '/v1/orchestrate', { key, body, headers });
  t.equal(first.body.error, 'NO_AGENTS_AVAILABLE');
  // An agent that fits exists now: only a new key sees it.
  await registerAgents(server, key, [agent('late')], t.teardown.bind(t));
  const retried = await api(server, 'POST', '/v1/orchestrate', { key, body, headers });
  t.equal(retried.status, first.status);
  // Every error body names the request that got it; the rest is the stored answer.
  const { requestId: firstId, ...firstAnswer } = first.body;
  const { requestId: retriedId, ...retriedAnswer } = retried.body;
  t.same(retriedAnswer, firstAnswer);
  t.not(retriedId, firstId);
  const fresh = await api(server, 'POST', '/v1/orchestrate', { key, body, headers: { 'x-idempotency-key': 'refused-never' } });
  t.equal(fresh.status, 202);
});

t.test('concurrent duplicates create one execution', async (t) => {
  const { key } = await setup(t, [agent('dup')]);
  const body = { query: 'dup', selectionCriteria: only(['dup']) };
  const replies = await Promise.all(
    Array.from({ length: 5 }, () => api(server, 'POST', '/v1/orchestrate', { key, body, headers: { 'x-idempotency-key': 'same' } })),
  );
  const ids = new Set(replies.filter((r) => r.status === 202).map((r) => r.body.executionId));
  t.equal(ids.size, 1);
  t.ok(replies.every((r) => r.status === 202 || (r.status === 409 && r.body.error === 'IDEMPOTENCY_IN_PROGRESS')));
});

t.test('request validation names the field', async (t) => {
  const { key } = await setup(t, [agent('v')]);
  const cases: Array<[Json, string]> = [
    [{}, 'query'],
    [{ query: '' }, 'query'],
    [{ query: 'x'.repeat(10_001) }, 'query'],
    [{ query: 'x', selectionCriteria: { maxAgents: 11 } }, 'selectionCriteria.maxAgents'],
    [{ query: 'x', selectionCriteria: { minConfidence: 1.5 } }, 'selectionCriteria.minConfidence'],
    [{ query: 'x', mode: 'RANDOM' }, 'mode'],
    [{ query: 'x', aggregationStrategy: 'custom' }, 'customAggregator'],
    [{ query: 'x', context: JSON.parse('{"a":'.repeat(11) + '1' + '}'.repeat(11)) as Json }, 'context'],
  ];
  for (const [body, field] of cases) {
    const res = await api(server, 'POST', '/v1/orchestrate', { key, body });
    t.equal(res.status, 400, JSON.stringify(body).slice(0, 80));
    t.equal(res.body.field, field);
  }
  const ten = JSON.parse('{"a":'.repeat(9) + '1' + '}'.repeat(9)) as Json;
  const ok = await api(server, 'POST', '/v1/orchestrate', { key, body: { query: 'v', context: ten, selectionCriteria: only(['v']) } });
  t.equal(ok.status, 202, 'ten levels of context are accepted');
});

t.test('nothing selectable is 404 NO_AGENTS_AVAILABLE with criteria and a suggestion', async (t) => {
  const { key } = await setup(t, [agent('lonely')]);
  const res = await api(server, 'POST', '/v1/orchestrate', { key, body: { query: 'x', selectionCriteria: { requiredCapabilities: ['teleportation'] } } });
  t.equal(res.status, 404);
  t.equal(res.body.error, 'NO_AGENTS_AVAILABLE');
  t.match(res.body.criteria, { requiredCapabilities: ['teleportation'], maxAgents: 5 });
  t.match(res.body.suggestion, /requiredCapabilities/);
});

t.test('maxCost refuses a selection whose estimate is over it', async (t) => {
  const { key } = await setup(t, [agent('pricey', {}, 1.0)]);
  const res = await api(server, 'POST', '/v1/orchestrate', { key, body: { query: 'x', maxCost: 0.5, selectionCriteria: only(['pricey']) } });
  t.equal(res.status, 422);
  t.equal(res.body.error, 'BUDGET_EXCEEDED');
});

t.test('the DEVELOPER fee has a 0.01 USD minimum', async (t) => {
  const { key } = await setup(t, [agent('cheap', { cost: 0.001 }, 0.001)], 'DEVELOPER');
  const res = await api(server, 'POST', '/v1/orchestrate', { key, body: { query: 'x', selectionCriteria: only(['cheap']) } });
  t.equal(res.body.estimatedCost, 0.011);
  const done = await waitForEnd(key, res.body.executionId as string);
  t.equal((done.metadata as Json).actualCost, 0.011);
});

t.test('a running execution reports its progress', async (t) => {
  // Both steps take a while: which runs first is selection's call, and either way the second
  // must be running long enough after the first finishes for a poll to see it.
  const { key } = await setup(t, [
    agent('first-step', { output: { a: 1 }, latencyMs: 800 }),
    agent('second-step', { output: { b: 2 }, latencyMs: 800 }),
  ]);
  const res = await api(server, 'POST', '/v1/orchestrate', {
    key,
    body: { query: 'one step then another', mode: 'SEQUENTIAL', selectionCriteria: only(['first-step', 'second-step']) },
  });
  const id = res.body.executionId as string;
  const order = (res.body.selectedAgents as Json[]).map((a) => a.id as string);
  let seen: Json | undefined;
  const deadline = Date.now() + 5_000;
  while (Date.now() < deadline) {
    const read = await api(server, 'GET', `/v1/executions/${id}`, { key });
    const progress = read.body.progress as Json | undefined;
    if (read.body.status === 'RUNNING' && progress !== undefined && progress.completed === 1) {
      seen = progress;
      break;
    }
    await new Promise((r) => setTimeout(r, 25));
  }
  t.same(seen, { completed: 1, total: 2, currentAgent: order[1], runningAgents: [order[1]] }, 'one of two done, the second running');
  const done = await waitForEnd(key, id);
  t.equal(done.status, 'COMPLETED');
  t.notOk('progress' in done, 'no progress object once finished');
});
