/**
 * The per-account concurrency queue end to end (embedded mode): a DEVELOPER account runs 5
 * executions at once and queues 20 more as PENDING, which start first in, first out as slots
 * free; the next submit is 429 QUEUE_FULL and records nothing; a cancelled queued execution
 * gives its place up. Agents take three seconds, so executions stay running while the test
 * submits; what the agent received (and when) shows which executions started and in what order.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t, { type Test } from 'tap';
import { startMockAgentFleet, type MockAgent } from '../fixtures/mock-agent-fleet.js';
import { ADMIN_TOKEN, api, createAccountWithKey, startServer, type ApiResponse } from '../helpers/server.js';

const server = await startServer(t, { mode: 'embedded' });

type Json = Record<string, unknown>;
// Long enough that the first wave is still running after 25 submissions on a busy CI machine
// (at one second, a loaded machine let the first execution finish before the 23rd submit).
const AGENT_LATENCY_MS = 3_000;

/** A DEVELOPER account with one private agent that answers after three seconds. */
async function setup(t: Test): Promise<{ key: string; agent: MockAgent }> {
  const { key } = await createAccountWithKey(server, 'DEVELOPER');
  const fleet = await startMockAgentFleet([{ latencyMs: AGENT_LATENCY_MS, info: { id: 'slow', name: 'Slow agent', description: 'Takes three seconds' } }]);
  t.teardown(() => fleet.close());
  const agent = fleet.agent(0);
  const res = await api(server, 'POST', '/v1/agents', {
    key,
    body: { id: 'slow', name: agent.info.name, description: agent.info.description, url: agent.url, vertical: 'testing', capabilities: ['echo'], pricing: agent.info.pricing },
  });
  if (res.status !== 201) throw new Error(`registration failed: ${res.status} ${res.text}`);
  return { key, agent };
}

function submit(key: string, n: number, headers: Record<string, string> = {}): Promise<ApiResponse> {
  return api(server, 'POST', '/v1/orchestrate', { key, headers, body: { query: `task ${n}`, selectionCriteria: { minConfidence: 0, maxAgents: 1 } } });
}

/** Execution ids in the order the agent received their calls. */
function receivedOrder(agent: MockAgent): string[] {
  return agent.requests
    .filter((r) => r.path === '/execute')
    .sort((a, b) => a.receivedAtMs - b.receivedAtMs)
    .map((r) => ((r.body as { metadata: { requestId: string } }).metadata.requestId));
}

async function until(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 60_000, everyMs = 50): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

async function statusOf(key: string, id: string): Promise<Json> {
  const res = await api(server, 'GET', `/v1/executions/${id}`, { key });
  if (res.status !== 200) throw new Error(`status read failed: ${res.status} ${res.text}`);
  return res.body;
}

t.test('five executions run, twenty wait as PENDING and start in FIFO order, and the next one is refused with QUEUE_FULL', async (t) => {
  const { key, agent } = await setup(t);
  const accepted: ApiResponse[] = [];
  for (let i = 1; i <= 25; i++) accepted.push(await submit(key, i));
  t.same(accepted.map((r) => r.status), Array(25).fill(202), 'all 25 accepted');
  t.same(accepted.map((r) => r.body.status), Array(25).fill('PENDING'));
  for (const [i, res] of accepted.slice(0, 5).entries()) t.notMatch(res.body.message, /queued/, `execution ${i + 1} starts at once`);
  for (const [i, res] of accepted.slice(5).entries()) t.match(res.body.message, new RegExp(`queued at position ${i + 1}\\b`), `execution ${i + 6} is queued at position ${i + 1}`);

  const refused = await submit(key, 26, { 'x-idempotency-key': 'the-26th' });
  t.equal(refused.status, 429);
  t.equal(refused.body.error, 'QUEUE_FULL');
  t.type(refused.body.retryAfter, 'number');
  t.ok((refused.body.retryAfter as number) >= 1);
  t.equal(refused.headers.get('retry-after'), String(refused.body.retryAfter));
  t.equal(refused.body.limit, 5);
  t.equal(refused.body.queueSize, 20);

  const ids = accepted.map((r) => r.body.executionId as string);
  await until('the agent received all 25 calls', () => agent.executeCount >= 25);
  const order = receivedOrder(agent);
  // Each wave of five starts only when the previous wave's calls end, a second later; within a
  // wave the five start together, so the order is asserted per wave.
  for (let wave = 0; wave < 5; wave++) {
    t.same(new Set(order.slice(wave * 5, wave * 5 + 5)), new Set(ids.slice(wave * 5, wave * 5 + 5)), `wave ${wave + 1} is executions ${wave * 5 + 1}–${wave * 5 + 5}`);
  }
  await until('the last execution completed', async () => (await statusOf(key, ids[24]!)).status === 'COMPLETED', 30_000, 250);

  // Nothing was recorded for the refused request, not even its idempotent answer: the same key
  // now that places are free is a new, accepted execution.
  const retried = await submit(key, 26, { 'x-idempotency-key': 'the-26th' });
  t.equal(retried.status, 202);
  t.notMatch(retried.body.message, /queued/);
  await until('the retried execution ran', () => agent.executeCount >= 26);
  t.equal(agent.executeCount, 26, 'the refused submit never reached the agent');
});

t.test('cancelling a queued execution frees its place and it never runs', async (t) => {
  const { key, agent } = await setup(t);
  const ids: string[] = [];
  for (let i = 1; i <= 25; i++) ids.push((await submit(key, i)).body.executionId as string);
  t.equal((await submit(key, 26)).status, 429, 'the queue is full');

  const victim = ids[10]!;
  const cancelled = await api(server, 'POST', `/v1/executions/${victim}/cancel`, { key });
  t.equal(cancelled.status, 200);
  t.equal(cancelled.body.status, 'CANCELLED');

  const late = await submit(key, 27);
  t.equal(late.status, 202, 'the freed place is taken by the next submit');
  t.match(late.body.message, /queued at position 20\b/);
  const lateId = late.body.executionId as string;

  await until('every remaining execution reached the agent', () => agent.executeCount >= 25);
  const order = receivedOrder(agent);
  t.notOk(order.includes(victim), 'the cancelled execution never ran');
  t.ok(order.slice(-5).includes(lateId), 'the late submit ran in the last wave');
  await until('the late execution completed', async () => (await statusOf(key, lateId)).status === 'COMPLETED', 30_000, 250);
  t.equal((await statusOf(key, victim)).status, 'CANCELLED');
});

t.test('after a restart, an execution left RUNNING fails as EXECUTION_INTERRUPTED and a queued one runs', async (t) => {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'baton-queue-restart-'));
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  const first = await startServer(t, { mode: 'embedded', env: { BATON_DATA_DIR: dataDir } });
  const account = await api(first, 'POST', '/v1/accounts', {
    key: ADMIN_TOKEN,
    body: { name: 'one slot', tier: 'ENTERPRISE', limits: { requestsPerMinute: 1000, requestsPerDay: 100000, concurrentExecutions: 1, queueSize: 5 } },
  });
  const keyRes = await api(first, 'POST', '/v1/api-keys', { key: ADMIN_TOKEN, body: { name: 'k', permissions: ['*'], accountId: account.body.id } });
  const key = keyRes.body.key as string;
  // The first call never answers: the execution is still RUNNING when the server stops.
  const fleet = await startMockAgentFleet([{ failure: (n) => (n === 1 ? { mode: 'hang' } : null) }]);
  t.teardown(() => fleet.close());
  const agent = fleet.agent(0);
  const registered = await api(first, 'POST', '/v1/agents', {
    key,
    body: { id: 'a', name: 'A', description: 'agent', url: agent.url, vertical: 'testing', capabilities: ['echo'], pricing: agent.info.pricing },
  });
  t.equal(registered.status, 201);
  const body = { query: 'work', selectionCriteria: { minConfidence: 0, maxAgents: 1 } };
  const held = (await api(first, 'POST', '/v1/orchestrate', { key, body })).body.executionId as string;
  await until('the agent holds the first call', () => agent.executeCount === 1);
  const queued = await api(first, 'POST', '/v1/orchestrate', { key, body });
  t.match(queued.body.message, /queued at position 1\b/);
  await first.stop();

  const second = await startServer(t, { mode: 'embedded', env: { BATON_DATA_DIR: dataDir } });
  const read = async (id: string) => (await api(second, 'GET', `/v1/executions/${id}`, { key })).body;
  await until('the held execution ended', async () => (await read(held)).status !== 'RUNNING', 30_000, 100);
  const interrupted = await read(held);
  t.equal(interrupted.status, 'FAILED');
  t.equal((interrupted.error as Json).code, 'EXECUTION_INTERRUPTED');
  const queuedId = queued.body.executionId as string;
  await until('the queued execution ended', async () => ['COMPLETED', 'FAILED'].includes((await read(queuedId)).status as string), 30_000, 100);
  t.equal((await read(queuedId)).status, 'COMPLETED');
});
