/**
 * Workflow runs and the per-account concurrency limit, end to end (embedded server): a run takes
 * one of the account's slots, shared with orchestrations, while it works; it is queued when all
 * slots are busy and refused with QUEUE_FULL beyond the queue; while paused on an approval it
 * holds no slot, and after the decision it takes one again (waiting in the queue if need be).
 * Orchestrations go to an agent that answers after a delay, so they hold their slots meanwhile.
 */
import t, { type Test } from 'tap';
import type { MockAgent } from '../fixtures/mock-agent-fleet.js';
import { api, createAccountWithKey, startServer, type ApiResponse } from '../helpers/server.js';
import { registerAgents, startToolServer, toolUsingAgent } from './fixtures.js';

const server = await startServer(t, { mode: 'embedded' });
const tools = await startToolServer();
t.teardown(() => tools.close());

type Json = Record<string, unknown>;

interface Setup {
  readonly key: string;
  readonly slow: MockAgent;
  readonly slug: string;
}

let counter = 0;

/**
 * A DEVELOPER account (5 concurrent executions, 20 queued) with a slow agent for orchestrations
 * (answers after `latencyMs`) and a one-step workflow whose agent calls the tool `lookup` at `risk`.
 */
async function setup(t: Test, latencyMs: number, risk: 'low' | 'high' = 'low'): Promise<Setup> {
  counter += 1;
  const { key } = await createAccountWithKey(server, 'DEVELOPER');
  const [slow, flow] = await registerAgents(
    server,
    key,
    [{ latencyMs, info: { id: `slow-${counter}`, name: 'Slow agent', description: 'Takes its time', capabilities: ['slow'] } }, toolUsingAgent(`wf-${counter}`, 'lookup')],
    t.teardown.bind(t),
  );
  const slug = `limited-${counter}`;
  const res = await api(server, 'POST', '/v1/workflows', {
    key,
    body: { slug, name: 'Limited', steps: [{ id: 'main', agent: flow!.info.id, tools: [{ name: 'lookup', url: `${tools.url}/lookup`, risk }] }] },
  });
  if (res.status !== 201) throw new Error(`workflow creation failed: ${res.status} ${res.text}`);
  return { key, slow: slow!, slug };
}

function orchestrate(key: string, n: number): Promise<ApiResponse> {
  return api(server, 'POST', '/v1/orchestrate', {
    key,
    body: { query: `task ${n}`, selectionCriteria: { minConfidence: 0, maxAgents: 1, requiredCapabilities: ['slow'] } },
  });
}

/** Submits `n` orchestrations and waits until the slow agent is working on all of them. */
async function holdSlots(key: string, slow: MockAgent, n: number): Promise<ApiResponse[]> {
  const before = slow.executeCount;
  const accepted: ApiResponse[] = [];
  for (let i = 1; i <= n; i++) accepted.push(await orchestrate(key, i));
  await until(`the agent runs ${n} executions`, () => slow.executeCount >= before + n);
  return accepted;
}

function run(key: string, slug: string): Promise<ApiResponse> {
  return api(server, 'POST', `/v1/workflows/${slug}/run`, { key, body: { task: 'what is the weather' } });
}

async function runStatus(key: string, id: string): Promise<Json> {
  const res = await api(server, 'GET', `/v1/workflows/execute/${id}`, { key });
  if (res.status !== 200) throw new Error(`status read failed: ${res.status} ${res.text}`);
  return res.body;
}

async function until(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Starts a run of a high-risk workflow and waits until it is paused on its approval; returns its id and the approval's. */
async function pausedRun(key: string, slug: string): Promise<{ id: string; approvalId: string }> {
  const res = await run(key, slug);
  if (res.status !== 200) throw new Error(`run failed: ${res.status} ${res.text}`);
  const id = res.body.execution_id as string;
  let approvalId: string | null = null;
  await until(`run ${id} waits for approval`, async () => {
    approvalId = (await runStatus(key, id)).waiting_for_approval as string | null;
    return approvalId !== null;
  });
  return { id, approvalId: approvalId! };
}

const lookupCalls = (): number => tools.calls.filter((c) => c.path === '/lookup').length;

t.test('a run submitted while five orchestrations hold every slot is queued and starts when one finishes', async (t) => {
  const { key, slow, slug } = await setup(t, 2_000);
  await holdSlots(key, slow, 5);
  const before = lookupCalls();
  const res = await run(key, slug);
  t.equal(res.status, 200);
  t.equal(res.body.status, 'queued');
  t.equal(res.body.queue_position, 1);
  t.match(res.body.message, /queued at position 1\b/i);
  const id = res.body.execution_id as string;
  t.equal((await runStatus(key, id)).status, 'queued', 'the status read shows it waiting for a slot');
  t.equal(lookupCalls(), before, 'nothing of the run has happened yet');
  await until('the run completes', async () => (await runStatus(key, id)).status === 'completed');
  t.match((await runStatus(key, id)).final_answer, /^answer: /);
  t.equal(lookupCalls(), before + 1);
});

t.test('runs paused on an approval hold no slot: with five paused, an orchestration still starts at once', async (t) => {
  const { key, slow, slug } = await setup(t, 100, 'high');
  const paused = [];
  for (let i = 0; i < 5; i++) paused.push(await pausedRun(key, slug));
  const before = slow.executeCount;
  const res = await orchestrate(key, 1);
  t.equal(res.status, 202);
  t.notMatch(res.body.message, /queued/, 'not queued behind the paused runs');
  await until('the orchestration reaches its agent', () => slow.executeCount > before, 5_000);
  for (const { id } of paused) t.equal((await runStatus(key, id)).status, 'running', 'a paused run still reads as running');
});

t.test('after approval a paused run takes a slot again and finishes', async (t) => {
  const { key, slug } = await setup(t, 100, 'high');
  const { id, approvalId } = await pausedRun(key, slug);
  const before = lookupCalls();
  const approved = await api(server, 'POST', `/v1/workflows/execute/${id}/approve/${approvalId}`, { key });
  t.equal(approved.status, 200);
  await until('the run completes', async () => (await runStatus(key, id)).status === 'completed');
  t.equal(lookupCalls(), before + 1, 'the approved tool ran');
});

t.test('a run approved while the account is at its limit waits in the queue and goes on when a slot frees', async (t) => {
  const { key, slow, slug } = await setup(t, 2_000, 'high');
  const { id, approvalId } = await pausedRun(key, slug);
  const accepted = await holdSlots(key, slow, 5);
  for (const res of accepted) t.notMatch(res.body.message, /queued/, 'the paused run leaves all five slots free');
  const before = lookupCalls();
  const approved = await api(server, 'POST', `/v1/workflows/execute/${id}/approve/${approvalId}`, { key });
  t.equal(approved.status, 200);
  const waiting = await runStatus(key, id);
  t.equal(waiting.status, 'queued', 'decided, but waiting for a slot');
  t.equal(waiting.waiting_for_approval, null);
  t.equal(lookupCalls(), before, 'the tool waits for the slot');
  await until('the run completes', async () => (await runStatus(key, id)).status === 'completed');
  t.equal(lookupCalls(), before + 1);
});

t.test('a run is refused with QUEUE_FULL and a retryAfter when every slot and queue place is taken', async (t) => {
  const { key, slow, slug } = await setup(t, 3_000);
  await holdSlots(key, slow, 5);
  for (let i = 6; i <= 25; i++) {
    const res = await orchestrate(key, i);
    if (!/queued/.test(res.body.message as string)) throw new Error(`orchestration ${i} was not queued: ${res.text}`);
  }
  const refused = await run(key, slug);
  t.equal(refused.status, 429);
  t.equal(refused.body.error, 'QUEUE_FULL');
  t.type(refused.body.retryAfter, 'number');
  t.equal(refused.headers.get('retry-after'), String(refused.body.retryAfter));
  t.equal(refused.body.limit, 5);
  t.equal(refused.body.queueSize, 20);
  t.equal(refused.body.execution_id, undefined, 'no run id is handed out');
});
