/**
 * AgentActor with a manual clock and a scripted client: circuit breaker transitions, health
 * polling, the per-agent concurrency cap and its unbounded queue, EWMA statistics, and the
 * timeout it sends (counted from when a call is sent, not when it was queued).
 */
import t from 'tap';
import { ask, createManualClock, dispatch, silentLogger, stop, type ManualClock, type Ref, type ReplyRef } from '../../src/actors/kit/index.js';
import { startActorSystem } from '../../src/actors/root-supervisor.js';
import { spawnAgentRegistry } from '../../src/actors/agent-registry-actor.js';
import type { AgentTuning } from '../../src/actors/agent-actor.js';
import type { AgentCall, AgentCallOutcome, AgentExecuted, AgentMessage } from '../../src/actors/agent-protocol.js';
import type { AgentStatsSnapshot } from '../../src/domain/agents.js';
import type { ExecuteOptions } from '../../src/ports/agent-client.js';
import type { ExecuteOutcome, HealthOutcome } from '../../src/ports/agent-outcomes.js';
import type { ExecuteRequest } from '../../src/schemas/agent-protocol.js';
import type { AgentRecord } from '../../src/domain/agents.js';
import { settle } from './fixtures/helpers.js';

interface PendingCall {
  readonly body: ExecuteRequest;
  readonly options: ExecuteOptions | undefined;
  readonly resolve: (outcome: ExecuteOutcome) => void;
}

function scriptedClient() {
  const calls: PendingCall[] = [];
  const probes: Array<(outcome: HealthOutcome) => void> = [];
  const execute = (_url: string, body: ExecuteRequest, options?: ExecuteOptions): Promise<ExecuteOutcome> =>
    new Promise((resolve) => calls.push({ body, options, resolve }));
  return {
    calls,
    probes,
    client: {
      execute,
      executeStreaming: (url: string, body: ExecuteRequest, _onChunk: (text: string) => void, options?: ExecuteOptions) => execute(url, body, options),
      getHealth: (): Promise<HealthOutcome> => new Promise((resolve) => probes.push(resolve)),
    },
  };
}

const success = (durationMs = 100): ExecuteOutcome => ({
  ok: true,
  status: 200,
  result: { answer: 'ok' },
  metadata: { cost: 0.01, duration: durationMs },
  streamed: false,
  durationMs,
});
const failure = (): ExecuteOutcome => ({ ok: false, kind: 'agent_error', message: 'boom', status: 500, durationMs: 5 });
const healthy: HealthOutcome = { ok: true, health: { status: 'healthy', timestamp: 0 }, healthy: true, status: 200, durationMs: 1 };
const down: HealthOutcome = { ok: false, kind: 'refused', message: 'ECONNREFUSED', durationMs: 1 };

const record: AgentRecord = {
  id: 'invoice-parser',
  ownerAccountId: null,
  name: 'Invoice Parser',
  description: 'parses invoices',
  url: 'http://127.0.0.1:9',
  vertical: 'finance',
  capabilities: ['ocr'],
  pricingModel: 'per_execution',
  basePriceMicroUsd: 40_000,
  timeoutMs: 30_000,
  examples: [],
  maxConcurrency: 16,
  createdAt: new Date(0),
  updatedAt: new Date(0),
};

const call: AgentCall = { prompt: 'parse', context: {}, requestId: 'req_1', userId: 'acct_1' };

interface Harness {
  readonly clock: ManualClock;
  readonly ref: Ref<AgentMessage>;
  readonly scripted: ReturnType<typeof scriptedClient>;
  stats(): AgentStatsSnapshot;
  execute(c?: AgentCall): Promise<AgentCallOutcome>;
}

function harness(
  t: { teardown(fn: () => unknown): void },
  tuning: Partial<AgentTuning> = {},
  agent: AgentRecord = record,
  clock: ManualClock = createManualClock(),
  onQueueWait?: (waitedMs: number) => void,
): Harness {
  const runtime = startActorSystem({ logger: silentLogger, clock });
  t.teardown(() => runtime.stop());
  const registry = spawnAgentRegistry(runtime, silentLogger);
  const scripted = scriptedClient();
  let latest: AgentStatsSnapshot | undefined;
  const ref = registry.spawnAgent('agent-1', {
    agent,
    client: scripted.client,
    publish: (s) => (latest = s),
    logger: silentLogger,
    random: () => 0,
    tuning: { healthJitterMs: 0, ...tuning },
    ...(onQueueWait === undefined ? {} : { onQueueWait }),
  });
  return {
    clock,
    ref,
    scripted,
    stats: () => {
      if (latest === undefined) throw new Error('no stats published yet');
      return latest;
    },
    execute: async (c = call) =>
      (await ask(ref, (replyTo: ReplyRef<AgentExecuted>) => ({ type: 'agent.execute', call: c, replyTo }), 60_000)).outcome,
  };
}

/** Starts a call, lets it reach the client, and finishes it with `outcome`. */
async function run(h: Harness, outcome: ExecuteOutcome): Promise<AgentCallOutcome> {
  const pending = h.execute();
  await settle();
  const next = h.scripted.calls.shift();
  if (next === undefined) return pending;
  next.resolve(outcome);
  return pending;
}

t.test('five consecutive failures open the circuit and later calls are refused without reaching the agent', async (t) => {
  const h = harness(t);
  for (let i = 0; i < 4; i++) await run(h, failure());
  t.equal(h.stats().circuit, 'closed');
  await run(h, failure());
  t.equal(h.stats().circuit, 'open');
  t.equal(h.stats().circuitOpen, true);
  const refused = await h.execute();
  t.match(refused, { ok: false, kind: 'circuit_open', rejected: true });
  t.equal(h.scripted.calls.length, 0, 'nothing was sent');
});

t.test('a success resets the consecutive-failure count', async (t) => {
  const h = harness(t, { rateMinCalls: 100 });
  for (let i = 0; i < 4; i++) await run(h, failure());
  await run(h, success());
  for (let i = 0; i < 4; i++) await run(h, failure());
  t.equal(h.stats().circuit, 'closed');
});

t.test('a failure rate at the threshold over the window opens the circuit', async (t) => {
  const h = harness(t, { rateWindow: 10, rateMinCalls: 10, failureRate: 0.5 });
  for (let i = 0; i < 9; i++) await run(h, i % 2 === 0 ? success() : failure());
  t.equal(h.stats().circuit, 'closed');
  await run(h, failure());
  t.equal(h.stats().circuit, 'open');
});

t.test('after the cool-down the circuit is half-open and a healthy probe closes it', async (t) => {
  const h = harness(t, { cooldownMs: 30_000, healthIntervalMs: 1_000_000 });
  for (let i = 0; i < 5; i++) await run(h, failure());
  h.clock.advance(29_999);
  await settle();
  t.equal(h.stats().circuit, 'open');
  // The first regular poll went out meanwhile; a poll still out would count as the probe.
  for (const answer of h.scripted.probes.splice(0)) answer(healthy);
  await settle();
  t.equal(h.stats().circuit, 'open', 'a regular poll does not end the cool-down');
  const probesBefore = h.scripted.probes.length;
  h.clock.advance(1);
  await settle();
  t.equal(h.stats().circuit, 'half_open');
  t.equal(h.stats().circuitOpen, true, 'selection still skips a half-open agent');
  t.equal(h.scripted.probes.length, probesBefore + 1, 'one probe went out at once');
  t.match(await h.execute(), { kind: 'circuit_open' }, 'calls are refused while the probe is out');
  h.scripted.probes.pop()!(healthy);
  await settle();
  t.equal(h.stats().circuit, 'closed');
  t.match(await run(h, success()), { ok: true });
});

t.test('a failed half-open probe reopens the circuit for another cool-down', async (t) => {
  const h = harness(t, { cooldownMs: 30_000, healthIntervalMs: 1_000_000 });
  for (let i = 0; i < 5; i++) await run(h, failure());
  h.clock.advance(30_000);
  await settle();
  h.scripted.probes.pop()!(down);
  await settle();
  t.equal(h.stats().circuit, 'open');
  h.clock.advance(30_000);
  await settle();
  t.equal(h.stats().circuit, 'half_open');
});

t.test('two failed health polls in a row mark the agent unhealthy and one good poll heals it', async (t) => {
  const h = harness(t, { healthIntervalMs: 10_000 });
  h.clock.advance(0);
  await settle();
  h.scripted.probes.shift()!(down);
  await settle();
  t.equal(h.stats().healthy, true, 'one failed poll is not enough');
  t.match(h.stats().lastHealthError, /refused/);
  h.clock.advance(10_000);
  await settle();
  h.scripted.probes.shift()!(down);
  await settle();
  t.equal(h.stats().healthy, false);
  h.clock.advance(10_000);
  await settle();
  h.scripted.probes.shift()!(healthy);
  await settle();
  t.equal(h.stats().healthy, true);
  t.equal(h.stats().lastHealthError, null);
});

t.test('the next poll is scheduled only after the previous one answered', async (t) => {
  const h = harness(t, { healthIntervalMs: 10_000 });
  h.clock.advance(0);
  await settle();
  t.equal(h.scripted.probes.length, 1);
  h.clock.advance(50_000);
  await settle();
  t.equal(h.scripted.probes.length, 1, 'no second poll while the first hangs');
});

t.test("calls beyond the agent's maxConcurrency wait in order, however many, and all run as slots free up", async (t) => {
  const h = harness(t, {}, { ...record, maxConcurrency: 2 });
  const outcomes = Array.from({ length: 300 }, (_, i) => h.execute({ ...call, requestId: `req_${i}` }));
  await settle(400);
  t.equal(h.scripted.calls.length, 2, 'two in flight');
  t.equal(h.stats().queued, 298, 'the rest wait: the queue has no bound of its own (the old one held 256)');
  const sent: string[] = [];
  while (h.scripted.calls.length > 0) {
    for (const c of h.scripted.calls.splice(0)) {
      sent.push(c.body.metadata.requestId);
      c.resolve(success());
    }
    await settle(40);
  }
  const results = await Promise.all(outcomes);
  t.ok(results.every((r) => r.ok), 'no call refused');
  t.same(sent, Array.from({ length: 300 }, (_, i) => `req_${i}`), 'sent in arrival order');
  t.equal(h.stats().inFlight, 0);
  t.equal(h.stats().queued, 0);
});

t.test("a queued call's timeout starts when it is sent, and its wait is reported", async (t) => {
  const waits: number[] = [];
  const h = harness(t, {}, { ...record, maxConcurrency: 1 }, createManualClock(), (ms) => waits.push(ms));
  const first = h.execute();
  const second = h.execute({ ...call, timeoutMs: 2_000 });
  await settle();
  h.clock.advance(5_000);
  await settle();
  t.equal(h.stats().queued, 1, 'still waiting after more than its budget');
  h.scripted.calls.shift()!.resolve(success());
  t.match(await first, { ok: true });
  await settle();
  t.equal(h.scripted.calls[0]?.body.metadata.timeout, 2_000, 'the whole budget, counted from sending');
  t.equal(h.scripted.calls[0]?.options?.timeoutMs, 2_000);
  t.same(waits, [5_000]);
  h.scripted.calls.shift()!.resolve(success());
  t.match(await second, { ok: true });
});

t.test('raising maxConcurrency (PATCH) starts waiting calls at once', async (t) => {
  const h = harness(t, {}, { ...record, maxConcurrency: 1 });
  const outcomes = [h.execute(), h.execute(), h.execute()];
  await settle();
  t.equal(h.scripted.calls.length, 1);
  dispatch(h.ref, { type: 'agent.update', agent: { ...record, maxConcurrency: 3 } });
  await settle();
  t.equal(h.scripted.calls.length, 3, 'both waiting calls sent');
  for (const c of h.scripted.calls.splice(0)) c.resolve(success());
  t.ok((await Promise.all(outcomes)).every((r) => r.ok));
});

t.test('a waiting call cancelled by its signal is answered cancelled and never sent', async (t) => {
  const h = harness(t, {}, { ...record, maxConcurrency: 1 });
  const first = h.execute();
  const controller = new AbortController();
  const second = h.execute({ ...call, signal: controller.signal });
  await settle();
  controller.abort();
  t.match(await second, { ok: false, kind: 'cancelled' });
  h.scripted.calls.shift()!.resolve(success());
  await first;
  await settle();
  t.equal(h.scripted.calls.length, 0);
});

t.test('an aborted call does not count against the agent', async (t) => {
  const h = harness(t);
  for (let i = 0; i < 10; i++) await run(h, { ok: false, kind: 'aborted', message: 'cancelled', durationMs: 1 });
  t.equal(h.stats().circuit, 'closed');
  t.equal(h.stats().successRate, 1);
});

t.test('latency and success rate are exponentially weighted moving averages', async (t) => {
  const h = harness(t, { ewmaAlpha: 0.5 });
  t.equal(h.stats().latencyMs, null);
  await run(h, success(100));
  t.equal(h.stats().latencyMs, 100);
  await run(h, success(200));
  t.equal(h.stats().latencyMs, 150);
  await run(h, failure());
  t.equal(h.stats().successRate, 0.5);
  t.equal(h.stats().latencyMs, 150, 'failures do not move the latency estimate');
  await run(h, success(150));
  t.equal(h.stats().successRate, 0.75);
});

t.test('a call sent on arrival carries the whole timeout even while the clock moves', async (t) => {
  // Real time passes between receiving the call and sending it; the agent must still be told its
  // configured timeout, not a millisecond less.
  const manual = createManualClock();
  let reads = 0;
  const ticking: ManualClock = { ...manual, now: () => manual.now() + 0.4 * ++reads };
  const h = harness(t, {}, record, ticking);
  const a = h.execute();
  await settle();
  t.equal(h.scripted.calls[0]?.body.metadata.timeout, 30_000);
  t.equal(h.scripted.calls[0]?.options?.timeoutMs, 30_000);
  for (const c of h.scripted.calls.splice(0)) c.resolve(success());
  await a;
});

t.test('the agent is sent the smaller of its own timeout and the call timeout', async (t) => {
  const h = harness(t, {}, { ...record, timeoutMs: 10_000 });
  const a = h.execute({ ...call, timeoutMs: 4_000 });
  const b = h.execute();
  await settle();
  t.same(h.scripted.calls.map((c) => c.body.metadata.timeout), [4_000, 10_000]);
  t.same(h.scripted.calls.map((c) => c.options?.timeoutMs), [4_000, 10_000]);
  t.same(h.scripted.calls[0]!.body.input, { prompt: 'parse', context: {} });
  for (const c of h.scripted.calls.splice(0)) c.resolve(success());
  await Promise.all([a, b]);
});

t.test('stopping the actor answers waiting calls stopped and still delivers calls in flight', async (t) => {
  const clock = createManualClock();
  const runtime = startActorSystem({ logger: silentLogger, clock });
  t.teardown(() => runtime.stop());
  const registry = spawnAgentRegistry(runtime, silentLogger);
  const scripted = scriptedClient();
  const ref = registry.spawnAgent('agent-stop', {
    agent: { ...record, maxConcurrency: 1 },
    client: scripted.client,
    publish: () => undefined,
    logger: silentLogger,
  });
  const send = () => ask(ref, (replyTo: ReplyRef<AgentExecuted>) => ({ type: 'agent.execute', call, replyTo }), 10_000);
  const inFlight = send();
  const waiting = send();
  await settle();
  stop(ref);
  t.match((await waiting).outcome, { kind: 'stopped' });
  scripted.calls.shift()!.resolve(success());
  t.match((await inFlight).outcome, { ok: true });
});
