/**
 * Aggregation strategies end to end: best, vote and custom (an aggregator agent) over agents
 * from the mock fleet registered through the API.
 */
import t, { type Test } from 'tap';
import { startMockAgentFleet, type MockAgentConfig } from '../fixtures/mock-agent-fleet.js';
import { registerAgents } from '../helpers/agents.js';
import { api, createAccountWithKey, startServer } from '../helpers/server.js';

const server = await startServer(t, { mode: 'embedded' });
type Json = Record<string, unknown>;

async function setup(t: Test, configs: MockAgentConfig[]): Promise<string> {
  const { key } = await createAccountWithKey(server, 'BUSINESS');
  await registerAgents(server, key, configs, t.teardown.bind(t));
  return key;
}

/** Agents whose descriptions match the query to different degrees, so confidences differ. */
function agent(id: string, description: string, output: Json, extra: Partial<MockAgentConfig> = {}): MockAgentConfig {
  return { info: { id, name: id, description, capabilities: ['shared'], pricing: { model: 'per_execution', basePrice: 0.01 } }, output, ...extra };
}

async function run(key: string, body: Json): Promise<Json> {
  const res = await api(server, 'POST', '/v1/orchestrate', { key, body: { selectionCriteria: { requiredCapabilities: ['shared'], minConfidence: 0 }, ...body } });
  if (res.status !== 202) throw new Error(`${res.status} ${res.text}`);
  const deadline = Date.now() + 15_000;
  for (;;) {
    const read = await api(server, 'GET', `/v1/executions/${res.body.executionId as string}`, { key });
    if (['COMPLETED', 'FAILED', 'CANCELLED'].includes(read.body.status as string)) return read.body;
    if (Date.now() > deadline) throw new Error('did not finish');
    await new Promise((r) => setTimeout(r, 50));
  }
}

t.test('best returns the output of the most confident agent that succeeded', async (t) => {
  const key = await setup(t, [
    agent('weather-expert', 'Forecasts weather: rain, temperature and wind for any city', { forecast: 'rain' }),
    agent('generalist', 'Answers general questions', { forecast: 'sun' }),
  ]);
  const done = await run(key, { query: 'weather forecast rain temperature wind for Paris', aggregationStrategy: 'best' });
  t.equal(done.status, 'COMPLETED');
  const result = done.result as { summary: string; details: Json };
  t.match(JSON.stringify(result), /rain/);
  t.match(result.details, { _aggregation: { strategy: 'best', agentId: 'weather-expert' } });
});

t.test('best skips a more confident agent that failed', async (t) => {
  const key = await setup(t, [
    agent('weather-expert', 'Forecasts weather: rain, temperature and wind for any city', {}, { failure: { mode: 'error' } }),
    agent('generalist', 'Answers general questions', { forecast: 'sun' }),
  ]);
  const done = await run(key, { query: 'weather forecast rain temperature wind for Paris', aggregationStrategy: 'best' });
  t.equal(done.status, 'COMPLETED');
  t.match((done.result as { details: Json }).details, { _aggregation: { agentId: 'generalist' } });
});

t.test('vote takes the majority value per field and shows the tally', async (t) => {
  const key = await setup(t, [
    agent('v1', 'classifies sentiment', { label: 'positive' }),
    agent('v2', 'classifies sentiment', { label: 'positive' }),
    agent('v3', 'classifies sentiment', { label: 'negative' }),
  ]);
  const done = await run(key, { query: 'classify the sentiment', aggregationStrategy: 'vote' });
  t.equal(done.status, 'COMPLETED');
  const details = (done.result as { details: Json }).details;
  t.equal(details.label, 'positive', 'the voted value is at the top of details');
  t.same(Object.keys(details), ['label', '_aggregation']);
  t.match(details._aggregation, {
    strategy: 'vote',
    voters: 3,
    agents: { v1: { label: 'positive' }, v2: { label: 'positive' }, v3: { label: 'negative' } },
    tally: { label: { winner: 'positive', voters: 3, majority: true } },
  });
});

t.test('custom hands every output to the aggregator agent and uses its answer', async (t) => {
  const key = await setup(t, [
    agent('part-a', 'writes part a', { text: 'A' }),
    agent('part-b', 'writes part b', { text: 'B' }),
  ]);
  const fleet = await startMockAgentFleet([
    {
      info: { id: 'combiner', name: 'combiner', description: 'combines outputs', capabilities: ['combine'], pricing: { model: 'per_execution', basePrice: 0.01 } },
      output: (request) => {
        const outputs = ((request.body as { input: { context: { outputs: Record<string, { text: string }> } } }).input.context.outputs);
        return { answer: Object.keys(outputs).sort().map((k) => outputs[k]!.text).join('+') };
      },
    },
  ]);
  t.teardown(() => fleet.close());
  const combiner = fleet.agents[0]!;
  const reg = await api(server, 'POST', '/v1/agents', {
    key,
    body: { id: 'combiner', name: 'combiner', description: 'combines outputs', url: combiner.url, vertical: 'testing', capabilities: ['combine'], pricing: { model: 'per_execution', basePrice: 0.01 } },
  });
  t.equal(reg.status, 201);
  const done = await run(key, { query: 'write parts', aggregationStrategy: 'custom', customAggregator: 'combiner' });
  t.equal(done.status, 'COMPLETED');
  t.match(done.result, { summary: 'A+B', details: { _aggregation: { strategy: 'custom', agentId: 'combiner' } } });
  t.equal((done.metadata as Json).agentsUsed, 3, 'the aggregator call counts');
});

t.test('a failing custom aggregator fails the execution', async (t) => {
  const broken: MockAgentConfig = {
    info: { id: 'broken-combiner', name: 'broken', description: 'combines', capabilities: ['combine'], pricing: { model: 'per_execution', basePrice: 0.01 } },
    failure: { mode: 'error', error: 'nope' },
  };
  const key = await setup(t, [agent('only', 'writes', { text: 'A' }), broken]);
  const done = await run(key, { query: 'write', aggregationStrategy: 'custom', customAggregator: 'broken-combiner' });
  t.equal(done.status, 'FAILED');
  t.match(done.error, { code: 'AGGREGATOR_FAILED' });
});
