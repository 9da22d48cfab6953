import t from 'tap';
import { createAgentClient } from '../../src/adapters/agent-http/client.js';
import type { ExecuteRequest } from '../../src/schemas/agent-protocol.js';
import { startMockAgent } from '../fixtures/mock-agent-fleet.js';
import { mockAgentWithClient } from '../helpers/agents.js';

function executeRequest(overrides: Partial<ExecuteRequest['metadata']> = {}): ExecuteRequest {
  return {
    input: { prompt: 'Summarise the quarterly report', context: { region: 'emea', depth: { level: 2 } } },
    metadata: { requestId: 'req_123', userId: 'acct_42', timeout: 30_000, ...overrides },
  };
}

const delay = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

t.test('a successful execute returns the agent result and metadata', async (t) => {
  const { agent, client } = await mockAgentWithClient(t, {
    output: { answer: 'Revenue grew 12%' },
    cost: 0.042,
    metadata: { model: 'mock-1', tokensUsed: { input: 10, output: 5 } },
  });
  const outcome = await client.execute(agent.url, executeRequest());
  t.equal(outcome.ok, true);
  if (!outcome.ok) return;
  t.same(outcome.result, { answer: 'Revenue grew 12%' });
  t.equal(outcome.metadata.cost, 0.042);
  t.equal(outcome.metadata.model, 'mock-1');
  t.same(outcome.metadata.tokensUsed, { input: 10, output: 5 });
  t.equal(outcome.status, 200);
  t.equal(outcome.streamed, false);
  t.ok(outcome.durationMs >= 0);
});

t.test('the agent receives the execute request exactly as sent, as JSON', async (t) => {
  const { agent, client } = await mockAgentWithClient(t);
  const body = executeRequest({ timeout: 12_345 });
  await client.execute(agent.url, body);
  t.equal(agent.requests.length, 1);
  const received = agent.requests[0];
  t.equal(received?.method, 'POST');
  t.equal(received?.path, '/execute');
  t.match(received?.headers['content-type'], /^application\/json/);
  t.same(received?.body, body);
});

t.test('a base URL with a trailing slash still reaches /execute', async (t) => {
  const { agent, client } = await mockAgentWithClient(t);
  const outcome = await client.execute(`${agent.url}/`, executeRequest());
  t.equal(outcome.ok, true);
  t.equal(agent.requests[0]?.path, '/execute');
});

t.test('getInfo returns the validated info document', async (t) => {
  const { agent, client } = await mockAgentWithClient(t, {
    info: { id: 'fin-1', name: 'Finance', capabilities: ['finance', 'summaries'], pricing: { model: 'per_execution', basePrice: 0.05 } },
  });
  const outcome = await client.getInfo(agent.url);
  t.equal(outcome.ok, true);
  if (!outcome.ok) return;
  t.equal(outcome.info.id, 'fin-1');
  t.same(outcome.info.capabilities, ['finance', 'summaries']);
  t.same(outcome.info.pricing, { model: 'per_execution', basePrice: 0.05 });
});

t.test('getInfo with a missing field is an invalid_shape outcome naming the field', async (t) => {
  const { agent, client } = await mockAgentWithClient(t, { info: { pricing: { model: 'per_execution', basePrice: -1 } } });
  const outcome = await client.getInfo(agent.url);
  t.equal(outcome.ok, false);
  if (outcome.ok) return;
  t.equal(outcome.kind, 'invalid_shape');
  t.match(outcome.message, /basePrice/);
});

t.test('getHealth reports a healthy agent', async (t) => {
  const { agent, client } = await mockAgentWithClient(t);
  const outcome = await client.getHealth(agent.url);
  t.equal(outcome.ok, true);
  if (!outcome.ok) return;
  t.equal(outcome.healthy, true);
  t.equal(outcome.health.status, 'healthy');
  t.type(outcome.health.timestamp, 'number');
});

t.test('getHealth reports an agent that answers unhealthy as reachable but not healthy', async (t) => {
  const { agent, client } = await mockAgentWithClient(t, { health: 'unhealthy' });
  const outcome = await client.getHealth(agent.url);
  t.equal(outcome.ok, true);
  if (!outcome.ok) return;
  t.equal(outcome.healthy, false);
  t.equal(outcome.status, 503);
});

t.test('getHealth on an agent that never answers times out at its deadline', async (t) => {
  const { agent, client } = await mockAgentWithClient(t, { health: 'hang' });
  const outcome = await client.getHealth(agent.url, { timeoutMs: 100 });
  t.equal(outcome.ok, false);
  if (!outcome.ok) t.equal(outcome.kind, 'timeout');
});

t.test('a closed agent port is a refused outcome', async (t) => {
  const { agent, client } = await mockAgentWithClient(t, { refuseAfterStart: true });
  const outcome = await client.execute(agent.url, executeRequest());
  t.equal(outcome.ok, false);
  if (!outcome.ok) t.equal(outcome.kind, 'refused');
});

t.test('an agent that stops listening after a successful call is refused on the next', async (t) => {
  const { agent, client } = await mockAgentWithClient(t);
  t.equal((await client.execute(agent.url, executeRequest())).ok, true);
  await agent.refuse();
  const outcome = await client.execute(agent.url, executeRequest());
  t.equal(outcome.ok, false);
  // The pooled socket may die under the request (reset) or the reconnect is refused.
  if (!outcome.ok) t.ok(outcome.kind === 'refused' || outcome.kind === 'reset', outcome.kind);
});

t.test('a connection reset mid-response is a reset outcome', async (t) => {
  const { agent, client } = await mockAgentWithClient(t, { failure: { mode: 'reset' } });
  const outcome = await client.execute(agent.url, executeRequest());
  t.equal(outcome.ok, false);
  if (!outcome.ok) t.equal(outcome.kind, 'reset');
});

t.test('metadata.timeout bounds the call and the agent sees the client hang up', async (t) => {
  const { agent, client } = await mockAgentWithClient(t, { latencyMs: 2_000 });
  const outcome = await client.execute(agent.url, executeRequest({ timeout: 150 }));
  t.equal(outcome.ok, false);
  if (outcome.ok) return;
  t.equal(outcome.kind, 'timeout');
  t.match(outcome.message, /150 ms/);
  t.ok(outcome.durationMs >= 140 && outcome.durationMs < 1_000, `took ${outcome.durationMs} ms`);
  await delay(50);
  t.equal(agent.requests[0]?.clientClosedEarly, true);
});

t.test('an explicit timeoutMs overrides metadata.timeout for a hanging agent', async (t) => {
  const { agent, client } = await mockAgentWithClient(t, { failure: { mode: 'hang' } });
  const outcome = await client.execute(agent.url, executeRequest(), { timeoutMs: 80 });
  t.equal(outcome.ok, false);
  if (!outcome.ok) t.equal(outcome.kind, 'timeout');
});

t.test('a 500 with the protocol failure body is an agent_error carrying its cost', async (t) => {
  const { agent, client } = await mockAgentWithClient(t, { failure: { mode: 'error', error: 'upstream model overloaded', cost: 0.003 } });
  const outcome = await client.execute(agent.url, executeRequest());
  t.equal(outcome.ok, false);
  if (outcome.ok) return;
  t.equal(outcome.kind, 'agent_error');
  t.equal(outcome.status, 500);
  t.equal(outcome.cost, 0.003);
  t.equal(outcome.message, 'upstream model overloaded');
});

t.test('a non-2xx answer without a failure body is an http_status outcome', async (t) => {
  const { agent, client } = await mockAgentWithClient(t, { failure: { mode: 'status', status: 502, body: '<h1>Bad gateway</h1>' } });
  const outcome = await client.execute(agent.url, executeRequest());
  t.equal(outcome.ok, false);
  if (outcome.ok) return;
  t.equal(outcome.kind, 'http_status');
  t.equal(outcome.status, 502);
  t.equal(outcome.cost, undefined);
});

t.test('a 200 whose body is not JSON is an invalid_json outcome', async (t) => {
  const { agent, client } = await mockAgentWithClient(t, { failure: { mode: 'garbage' } });
  const outcome = await client.execute(agent.url, executeRequest());
  t.equal(outcome.ok, false);
  if (!outcome.ok) t.equal(outcome.kind, 'invalid_json');
});

t.test('a 200 JSON body of the wrong shape is an invalid_shape outcome', async (t) => {
  const { agent, client } = await mockAgentWithClient(t, { failure: { mode: 'wrong_shape' } });
  const outcome = await client.execute(agent.url, executeRequest());
  t.equal(outcome.ok, false);
  if (!outcome.ok) t.equal(outcome.kind, 'invalid_shape');
});

t.test('a result that is not an object is an invalid_shape outcome', async (t) => {
  const { agent, client } = await mockAgentWithClient(t, { output: () => ['not', 'an', 'object'] as unknown as Record<string, unknown> });
  const outcome = await client.execute(agent.url, executeRequest());
  t.equal(outcome.ok, false);
  if (outcome.ok) return;
  t.equal(outcome.kind, 'invalid_shape');
  t.match(outcome.message, /result/);
});

t.test('a huge chunked body is cut off at the cap as too_large', async (t) => {
  const { agent, client } = await mockAgentWithClient(t, { failure: { mode: 'huge', bytes: 8 * 1024 * 1024 } });
  const outcome = await client.execute(agent.url, executeRequest(), { maxBytes: 64 * 1024 });
  t.equal(outcome.ok, false);
  if (!outcome.ok) t.equal(outcome.kind, 'too_large');
});

t.test('a body over the default 1 MiB cap is too_large', async (t) => {
  const { agent, client } = await mockAgentWithClient(t, { failure: { mode: 'huge', bytes: 2 * 1024 * 1024 } });
  const outcome = await client.execute(agent.url, executeRequest());
  t.equal(outcome.ok, false);
  if (!outcome.ok) t.equal(outcome.kind, 'too_large');
});

t.test('a declared Content-Length over the cap is refused before reading', async (t) => {
  const { agent, client } = await mockAgentWithClient(t, { failure: { mode: 'huge', bytes: 4 * 1024 * 1024, declareLength: true } });
  const outcome = await client.execute(agent.url, executeRequest(), { maxBytes: 1024 });
  t.equal(outcome.ok, false);
  if (!outcome.ok) t.equal(outcome.kind, 'too_large');
});

t.test('a body just under the cap is accepted', async (t) => {
  const { agent, client } = await mockAgentWithClient(t, { failure: { mode: 'huge', bytes: 60 * 1024 } });
  const outcome = await client.execute(agent.url, executeRequest(), { maxBytes: 64 * 1024 });
  t.equal(outcome.ok, true);
});

t.test('the caller aborting its signal ends the call as aborted', async (t) => {
  const { agent, client } = await mockAgentWithClient(t, { latencyMs: 2_000 });
  const controller = new AbortController();
  setTimeout(() => controller.abort(), 50);
  const outcome = await client.execute(agent.url, executeRequest(), { signal: controller.signal });
  t.equal(outcome.ok, false);
  if (outcome.ok) return;
  t.equal(outcome.kind, 'aborted');
  t.ok(outcome.durationMs < 1_000);
});

t.test('an already aborted signal ends the call as aborted', async (t) => {
  const { agent, client } = await mockAgentWithClient(t);
  const outcome = await client.execute(agent.url, executeRequest(), { signal: AbortSignal.abort() });
  t.equal(outcome.ok, false);
  if (!outcome.ok) t.equal(outcome.kind, 'aborted');
});

t.test('a URL the policy refuses is a url_not_allowed outcome without a connection', async (t) => {
  const agent = await startMockAgent();
  const strict = createAgentClient({ allowPrivate: false });
  t.teardown(async () => {
    await strict.close();
    await agent.close();
  });
  for (const url of [agent.url, `https://127.0.0.1:${agent.port}`, `https://user:pw@agent.example.com`, 'nonsense']) {
    const outcome = await strict.execute(url, executeRequest());
    t.equal(outcome.ok ? 'ok' : outcome.kind, 'url_not_allowed', url);
  }
  t.equal(agent.connectionCount, 0);
});

t.test('a name resolving to a private address is a url_not_allowed outcome', async (t) => {
  const agent = await startMockAgent();
  const client = createAgentClient({
    allowPrivate: false,
    resolver: async () => [{ address: '127.0.0.1', family: 4 }],
  });
  t.teardown(async () => {
    await client.close();
    await agent.close();
  });
  const outcome = await client.getHealth(`https://agent.example.com:${agent.port}`);
  t.equal(outcome.ok, false);
  if (outcome.ok) return;
  t.equal(outcome.kind, 'url_not_allowed');
  t.equal(outcome.reason, 'blocked_address');
  t.match(outcome.message, /127\.0\.0\.1/);
  t.equal(agent.connectionCount, 0);
});

t.test('sequential calls to one agent reuse a keep-alive connection', async (t) => {
  const { agent, client } = await mockAgentWithClient(t);
  for (let i = 0; i < 5; i++) {
    t.equal((await client.execute(agent.url, executeRequest())).ok, true);
    await new Promise((resolve) => setImmediate(resolve));
  }
  t.equal(agent.connectionCount, 1);
});
