/**
 * Agents that leave out `metadata.cost` / `metadata.duration` (or all metadata) still complete an
 * execution, and are charged their registered base price (DESIGN §14), through the whole service.
 */
import t, { type Test } from 'tap';
import { startMockAgentFleet, type MockAgentConfig } from '../fixtures/mock-agent-fleet.js';
import { registerAgents } from '../helpers/agents.js';
import { api, createAccountWithKey, startServer } from '../helpers/server.js';

const server = await startServer(t, { mode: 'embedded' });
type Json = Record<string, unknown>;

function agent(id: string, basePrice: number, extra: Partial<MockAgentConfig>): MockAgentConfig {
  return { info: { id, name: id, description: `does ${id}`, capabilities: ['lenient'], pricing: { model: 'per_execution', basePrice } }, ...extra };
}

async function run(key: string, body: Json): Promise<Json> {
  const res = await api(server, 'POST', '/v1/orchestrate', {
    key,
    body: { selectionCriteria: { requiredCapabilities: ['lenient'], minConfidence: 0 }, ...body },
  });
  if (res.status !== 202) throw new Error(`${res.status} ${res.text}`);
  const deadline = Date.now() + 15_000;
  for (;;) {
    const read = await api(server, 'GET', `/v1/executions/${res.body.executionId as string}`, { key });
    if (['COMPLETED', 'FAILED', 'CANCELLED'].includes(read.body.status as string)) return read.body;
    if (Date.now() > deadline) throw new Error('did not finish');
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function account(t: Test, configs: MockAgentConfig[]): Promise<string> {
  const { key } = await createAccountWithKey(server, 'BUSINESS');
  await registerAgents(server, key, configs, t.teardown.bind(t));
  return key;
}

t.test('agents reporting no cost or no metadata complete and are charged their base price', async (t) => {
  const key = await account(t, [
    agent('no-cost', 0.02, { output: { answer: 'A' }, metadata: { cost: undefined } }),
    agent('no-duration', 0.04, { output: { answer: 'B' }, cost: 0.03, metadata: { duration: undefined } }),
    agent('no-metadata', 0.05, { failure: { mode: 'status', status: 200, body: JSON.stringify({ result: { answer: 'C' } }) } }),
  ]);
  const done = await run(key, { query: 'do the work' });
  t.equal(done.status, 'COMPLETED', JSON.stringify(done));
  const details = (done.result as { details: Json }).details;
  t.same(details['no-cost'], { answer: 'A' });
  t.same(details['no-duration'], { answer: 'B' });
  t.same(details['no-metadata'], { answer: 'C' });
  // 0.02 (base) + 0.03 (reported) + 0.05 (base) = 0.10, plus the 5% BUSINESS fee.
  t.match(done.metadata, { actualCost: 0.105, agentsUsed: 3 });
});

t.test('a custom aggregator that reports no cost is charged its base price', async (t) => {
  const key = await account(t, [agent('part', 0.01, { output: { text: 'P' } })]);
  const fleet = await startMockAgentFleet([
    { info: { id: 'joiner', name: 'joiner', description: 'joins', capabilities: ['join'], pricing: { model: 'per_execution', basePrice: 0.02 } }, output: { answer: 'joined' }, metadata: { cost: undefined } },
  ]);
  t.teardown(() => fleet.close());
  const reg = await api(server, 'POST', '/v1/agents', {
    key,
    body: { id: 'joiner', name: 'joiner', description: 'joins', url: fleet.agents[0]!.url, vertical: 'testing', capabilities: ['join'], pricing: { model: 'per_execution', basePrice: 0.02 } },
  });
  t.equal(reg.status, 201, reg.text);
  const done = await run(key, { query: 'join the parts', aggregationStrategy: 'custom', customAggregator: 'joiner' });
  t.equal(done.status, 'COMPLETED', JSON.stringify(done));
  t.match(done.result, { summary: 'joined' });
  // 0.01 (part, reported) + 0.02 (aggregator's base price) = 0.03, plus 5%.
  t.match(done.metadata, { actualCost: 0.0315, agentsUsed: 2 });
});
