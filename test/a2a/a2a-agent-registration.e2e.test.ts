/**
 * An A2A agent registered by its card URL on a spawned Baton: the card's skills become the
 * agent's capabilities and examples; /v1/orchestrate selects it and runs it with A2A
 * message/send, and its artifact is the execution's result, charged at the declared price. A
 * failed task and a task asking for input are agent failures with a clear message.
 */
import t from 'tap';
import { api, createAccountWithKey, startServer } from '../helpers/server.js';
import { startA2aAgent } from './a2a-agent-server.js';

type Json = Record<string, unknown>;

const server = await startServer(t, { mode: 'embedded' });
const agent = await startA2aAgent();
t.teardown(() => agent.close());

let counter = 0;

async function register(key: string, extra: Json = {}): Promise<{ id: string; res: Awaited<ReturnType<typeof api<Json>>> }> {
  counter += 1;
  const id = `weather-a2a-${counter}`;
  const res = await api(server, 'POST', '/v1/agents', { key, body: { id, a2aCardUrl: agent.cardUrl, ...extra } });
  return { id, res };
}

async function orchestrate(key: string, query: string): Promise<Json> {
  const res = await api(server, 'POST', '/v1/orchestrate', { key, body: { query, selectionCriteria: { minConfidence: 0, maxAgents: 1 } } });
  if (res.status !== 202) throw new Error(`orchestrate failed: ${res.status} ${res.text}`);
  const deadline = Date.now() + 15_000;
  for (;;) {
    const read = await api(server, 'GET', `/v1/executions/${res.body.executionId as string}`, { key });
    if (['COMPLETED', 'FAILED', 'CANCELLED'].includes(read.body.status as string)) return read.body;
    if (Date.now() > deadline) throw new Error(`execution still ${read.body.status as string}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

t.test('registering by card URL takes the name, capabilities and examples from the card', async (t) => {
  const { key } = await createAccountWithKey(server, 'BUSINESS', ['*']);
  const { id, res } = await register(key, { pricing: { model: 'per_execution', basePrice: 0.02 } });
  t.equal(res.status, 201, res.text);
  t.match(res.body, {
    id,
    name: 'Weather Agent',
    protocol: 'a2a',
    a2aCardUrl: agent.cardUrl,
    url: `${agent.url}/a2a`,
    capabilities: ['Weather forecast', 'weather', 'forecast'],
    examples: ['What is the weather in Lisbon tomorrow?'],
    vertical: 'general',
    pricing: { model: 'per_execution', basePrice: 0.02 },
  });
  t.match(res.body.description, /Answers weather questions\.\nSkills:\n- Weather forecast: Forecasts the weather for a city/);
  const patched = await api(server, 'PATCH', `/v1/agents/${id}`, { key, body: { url: 'http://127.0.0.1:1/elsewhere' } });
  t.equal(patched.status, 400, `the endpoint comes from the card: ${patched.text}`);
  t.match(patched.body, { error: 'INVALID_REQUEST', field: 'url' });
});

t.test('a card URL that does not answer a card is refused with AGENT_UNREACHABLE naming a2aCardUrl', async (t) => {
  const { key } = await createAccountWithKey(server, 'BUSINESS', ['*']);
  const res = await api(server, 'POST', '/v1/agents', { key, body: { id: 'no-card', a2aCardUrl: `${agent.url}/missing.json` } });
  t.equal(res.status, 422, res.text);
  t.match(res.body, { error: 'AGENT_UNREACHABLE', field: 'a2aCardUrl', probe: 'card', reason: 'http_status' });
  const bad = await api(server, 'POST', '/v1/agents', { key, body: { id: 'bad-card', a2aCardUrl: 'https://169.254.169.254/card.json' } });
  t.equal(bad.status, 400);
  t.match(bad.body, { error: 'URL_NOT_ALLOWED', field: 'a2aCardUrl' });
  const mixed = await api(server, 'POST', '/v1/agents', { key, body: { id: 'mixed', a2aCardUrl: agent.cardUrl, url: agent.url } });
  t.equal(mixed.status, 400);
  t.match(mixed.body, { error: 'INVALID_REQUEST', field: 'url' }, 'the error names a field of the A2A registration');
});

t.test('orchestrate selects the A2A agent, sends message/send, and returns its artifact as the result at the declared price', async (t) => {
  const { key } = await createAccountWithKey(server, 'BUSINESS', ['*']);
  const { id, res } = await register(key, { pricing: { model: 'per_execution', basePrice: 0.02 } });
  t.equal(res.status, 201, res.text);
  const done = await orchestrate(key, 'what is the weather forecast in Porto');
  t.equal(done.status, 'COMPLETED', JSON.stringify(done));
  const details = (done.result as { summary: string; details: Record<string, Json> }).details;
  t.equal(details[id]!.answer, 'forecast: sunny for "what is the weather forecast in Porto"');
  t.match(details[id]!.a2a, { kind: 'task' });
  t.equal((done.result as { summary: string }).summary, 'forecast: sunny for "what is the weather forecast in Porto"');
  t.equal((done.metadata as Json).actualCost, 0.021, 'the declared 0.02 plus the 5% BUSINESS fee');
  t.equal(agent.received.at(-1)!.text, 'what is the weather forecast in Porto');
});

t.test('a failed task and a task asking for input are agent failures with their reason', async (t) => {
  const { key } = await createAccountWithKey(server, 'BUSINESS', ['*']);
  const { id } = await register(key);
  const failed = await orchestrate(key, 'weather forecast that will fail');
  t.equal(failed.status, 'FAILED');
  t.match(JSON.stringify(failed), /the A2A task ended failed: no forecasts for that place/);
  const more = await orchestrate(key, 'weather forecast, more please');
  t.equal(more.status, 'FAILED');
  t.match(JSON.stringify(more), /asked for more input \(input-required\).*which city\?/);
  const agentView = await api(server, 'GET', `/v1/agents/${id}`, { key });
  t.equal((agentView.body.status as Json).healthy, true, 'health is the card fetch');
  t.ok(agent.cardFetches > 0);
});
