/**
 * DESIGN §14 "lenient with agents where the spec's samples are": a success body whose metadata
 * lacks cost and/or duration (or has no metadata at all) is a success; what protects users
 * (JSON only, an object result, valid types, the size cap) stays strict.
 */
import t from 'tap';
import type { ExecuteRequest } from '../../src/schemas/agent-protocol.js';
import type { MockAgentConfig } from '../fixtures/mock-agent-fleet.js';
import { mockAgentWithClient } from '../helpers/agents.js';

const request: ExecuteRequest = {
  input: { prompt: 'Summarise', context: {} },
  metadata: { requestId: 'req_lenient', userId: 'acct_1', timeout: 5_000 },
};

/** An agent answering 200 with exactly this JSON body. */
function rawBody(body: unknown): MockAgentConfig {
  return { failure: { mode: 'status', status: 200, body: JSON.stringify(body) } };
}

t.test('a success without metadata.cost is a success with cost null (the caller charges the base price)', async (t) => {
  // Spreading `cost: undefined` over the mock's metadata drops the field from the JSON it sends.
  const { client, agent } = await mockAgentWithClient(t, { output: { answer: 'ok' }, metadata: { cost: undefined, model: 'm-1' } });
  const outcome = await client.execute(agent.url, request);
  t.equal(outcome.ok, true, JSON.stringify(outcome));
  if (!outcome.ok) return;
  t.same(outcome.result, { answer: 'ok' });
  t.equal(outcome.metadata.cost, null);
  t.type(outcome.metadata.duration, 'number');
  t.equal(outcome.metadata.model, 'm-1');
});

t.test('a success without metadata.duration gets the measured duration', async (t) => {
  const { client, agent } = await mockAgentWithClient(t, { output: { answer: 'ok' }, cost: 0.5, latencyMs: 60, metadata: { duration: undefined } });
  const outcome = await client.execute(agent.url, request);
  t.equal(outcome.ok, true, JSON.stringify(outcome));
  if (!outcome.ok) return;
  t.equal(outcome.metadata.cost, 0.5);
  t.ok(outcome.metadata.duration >= 55, `measured ${outcome.metadata.duration} ms for a 60 ms agent`);
  t.equal(outcome.metadata.duration, Math.round(outcome.metadata.duration), 'whole milliseconds');
});

t.test('a success with empty metadata, or none at all, is a success', async (t) => {
  for (const body of [{ result: { answer: 'a' }, metadata: {} }, { result: { answer: 'a' } }]) {
    const { client, agent } = await mockAgentWithClient(t, rawBody(body));
    const outcome = await client.execute(agent.url, request);
    t.equal(outcome.ok, true, `${JSON.stringify(body)} → ${JSON.stringify(outcome)}`);
    if (!outcome.ok) continue;
    t.same(outcome.result, { answer: 'a' });
    t.equal(outcome.metadata.cost, null);
    t.type(outcome.metadata.duration, 'number');
  }
});

t.test('fields outside the protocol are not kept from the metadata', async (t) => {
  const { client, agent } = await mockAgentWithClient(t, rawBody({ result: { a: 1 }, metadata: { cost: 0.1, duration: 7, secretTrace: 'x'.repeat(1000) } }));
  const outcome = await client.execute(agent.url, request);
  t.equal(outcome.ok, true);
  if (outcome.ok) t.same(outcome.metadata, { cost: 0.1, duration: 7 });
});

t.test('leniency stops where users need protection', async (t) => {
  const cases: [string, unknown, RegExp][] = [
    ['a negative cost', { result: { a: 1 }, metadata: { cost: -1 } }, /cost/],
    ['a cost that is a string', { result: { a: 1 }, metadata: { cost: '0.1' } }, /cost/],
    ['a duration that is a string', { result: { a: 1 }, metadata: { duration: 'fast' } }, /duration/],
    ['metadata that is not an object', { result: { a: 1 }, metadata: 'none' }, /metadata/],
    ['a result that is not an object', { result: 'text', metadata: {} }, /result/],
    ['no result', { metadata: { cost: 0 } }, /result/],
  ];
  for (const [name, body, field] of cases) {
    const { client, agent } = await mockAgentWithClient(t, rawBody(body));
    const outcome = await client.execute(agent.url, request);
    t.equal(outcome.ok, false, name);
    if (outcome.ok) continue;
    t.equal(outcome.kind, 'invalid_shape', name);
    t.match(outcome.message, field, name);
  }
});

t.test('a failure body without metadata keeps its error message and reports no cost', async (t) => {
  const { client, agent } = await mockAgentWithClient(t, { failure: { mode: 'status', status: 500, body: JSON.stringify({ result: null, error: 'quota exhausted' }) } });
  const outcome = await client.execute(agent.url, request);
  t.equal(outcome.ok, false);
  if (outcome.ok) return;
  t.equal(outcome.kind, 'agent_error');
  t.equal(outcome.message, 'quota exhausted');
  t.equal(outcome.cost, undefined);
});
