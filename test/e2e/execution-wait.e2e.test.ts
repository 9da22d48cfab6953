/**
 * Waiting for an execution without a poll loop: the `?wait=` long poll and the SSE stream of status
 * events, with the status read's ownership rules; and the progress of a PARALLEL execution while
 * it runs (currentAgent is the first in-flight agent, runningAgents every one).
 */
import t, { type Test } from 'tap';
import type { MockAgentConfig } from '../fixtures/mock-agent-fleet.js';
import { registerAgents } from '../helpers/agents.js';
import { api, createAccountWithKey, startServer } from '../helpers/server.js';
import { openSse } from '../helpers/sse.js';

const server = await startServer(t, { mode: 'embedded' });

type Json = Record<string, unknown>;

function agent(id: string, latencyMs: number): MockAgentConfig {
  return {
    info: { id, name: `Agent ${id}`, description: `Does ${id} work`, capabilities: [`cap-${id}`], pricing: { model: 'per_execution', basePrice: 0.01 } },
    output: { from: id },
    latencyMs,
  };
}

async function setup(t: Test, configs: MockAgentConfig[]): Promise<string> {
  const { key } = await createAccountWithKey(server, 'ENTERPRISE');
  await registerAgents(server, key, configs, t.teardown.bind(t));
  return key;
}

async function submit(key: string, ids: string[]): Promise<string> {
  const res = await api(server, 'POST', '/v1/orchestrate', {
    key,
    body: { query: `run ${ids.join(' and ')}`, selectionCriteria: { requiredCapabilities: [], minConfidence: 0, maxAgents: ids.length } },
  });
  if (res.status !== 202) throw new Error(`submit failed: ${res.status} ${res.text}`);
  return res.body.executionId as string;
}

t.test('?wait answers as soon as the execution is terminal, with the full status', async (t) => {
  const key = await setup(t, [agent('lp-agent', 600)]);
  const id = await submit(key, ['lp-agent']);
  const started = Date.now();
  const res = await api(server, 'GET', `/v1/executions/${id}?wait=20000`, { key });
  const tookMs = Date.now() - started;
  t.equal(res.status, 200, res.text);
  t.equal(res.body.status, 'COMPLETED', 'one request, the final answer');
  t.same((res.body.result as { details: Json }).details['lp-agent'], { from: 'lp-agent' });
  t.ok(tookMs < 15_000, `answered on completion, not at the end of the wait (${tookMs} ms)`);
  const again = await api(server, 'GET', `/v1/executions/${id}?wait=20000`, { key });
  t.equal(again.body.status, 'COMPLETED', 'a terminal execution answers at once');
});

t.test('?wait ends with the current status when the wait runs out first', async (t) => {
  const key = await setup(t, [agent('slow-agent', 4_000)]);
  const id = await submit(key, ['slow-agent']);
  const started = Date.now();
  const res = await api(server, 'GET', `/v1/executions/${id}?wait=300`, { key });
  t.equal(res.status, 200);
  t.ok(['PENDING', 'RUNNING'].includes(res.body.status as string), `still live: ${res.body.status as string}`);
  t.ok(Date.now() - started >= 250, 'waited');
});

t.test('an invalid wait is 400 naming the field; another account gets 404 for both forms', async (t) => {
  const key = await setup(t, [agent('own-agent', 50)]);
  const id = await submit(key, ['own-agent']);
  for (const bad of ['-1', '30001', 'abc', '1.5', '99999999']) {
    const res = await api(server, 'GET', `/v1/executions/${id}?wait=${bad}`, { key });
    t.equal(res.status, 400, `wait=${bad}`);
    t.equal(res.body.error, 'INVALID_REQUEST');
    t.equal(res.body.field, 'wait');
  }
  const other = await createAccountWithKey(server, 'ENTERPRISE');
  const poll = await api(server, 'GET', `/v1/executions/${id}?wait=1000`, { key: other.key });
  t.equal(poll.status, 404);
  t.equal(poll.body.error, 'EXECUTION_NOT_FOUND');
  const stream = openSse(server.port, `/v1/executions/${id}/events`, other.key);
  t.equal(await stream.status, 404, 'no stream of another account\'s execution');
  stream.close();
});

t.test('the events stream sends each status change and ends after the terminal one', async (t) => {
  const key = await setup(t, [agent('sse-agent', 800)]);
  const id = await submit(key, ['sse-agent']);
  const stream = openSse(server.port, `/v1/executions/${id}/events`, key);
  t.equal(await stream.status, 200);
  await stream.ended;
  const names = stream.events.map((e) => e.event);
  t.equal(names.at(-1), 'execution.completed', `ends with completion: ${names.join(', ')}`);
  t.equal(new Set(names).size, names.length, 'each status once');
  t.ok(names.every((n) => ['execution.pending', 'execution.running', 'execution.completed'].includes(n)), names.join(', '));
  const last = stream.events.at(-1)!.data;
  t.equal(last.id, id);
  t.same((last.result as { details: Json }).details['sse-agent'], { from: 'sse-agent' }, 'the data is the status view');
  const late = openSse(server.port, `/v1/executions/${id}/events`, key);
  await late.ended;
  t.same(late.events.map((e) => e.event), ['execution.completed'], 'opened after the end: the final status, then the end');
});

t.test('a running PARALLEL execution names its first in-flight agent and lists every one', async (t) => {
  const key = await setup(t, [agent('par-a', 1_500), agent('par-b', 1_500), agent('par-c', 1_500)]);
  const id = await submit(key, ['par-a', 'par-b', 'par-c']);
  let progress: Json | undefined;
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    const read = await api(server, 'GET', `/v1/executions/${id}`, { key });
    if (read.body.status === 'RUNNING') {
      progress = read.body.progress as Json;
      break;
    }
    await new Promise((r) => setTimeout(r, 25));
  }
  t.ok(progress !== undefined, 'seen RUNNING');
  const running = progress!.runningAgents as string[];
  t.same([...running].sort(), ['par-a', 'par-b', 'par-c'], 'all three in flight');
  t.type(progress!.currentAgent, 'string', 'currentAgent is a string, not null');
  t.equal(progress!.currentAgent, running[0]);
  t.equal(progress!.completed, 0);
  const done = await api(server, 'GET', `/v1/executions/${id}?wait=20000`, { key });
  t.equal(done.body.status, 'COMPLETED');
});
