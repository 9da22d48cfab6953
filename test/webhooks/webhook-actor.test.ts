import http from 'node:http';
import type { AddressInfo } from 'node:net';
import t from 'tap';
import { silentLogger } from '../../src/actors/kit/logger.js';
import { createManualClock, type ManualClock } from '../../src/actors/kit/manual-clock.js';
import { startActorSystem, type ActorRuntime } from '../../src/actors/root-supervisor.js';
import { spawnWebhookActor } from '../../src/actors/webhook-actor.js';
import type { WebhookSender } from '../../src/actors/webhook-protocol.js';
import { createOutboundDispatcher } from '../../src/adapters/outbound/dispatcher.js';
import type { DurableStores } from '../../src/ports/durable.js';
import type { WebhookDelivery } from '../../src/domain/webhooks.js';
import { completedData, startedData, WebhookEvent, type WebhookEvent as Event } from '../../src/logic/webhooks/events.js';
import { enqueueWebhook } from '../../src/logic/webhooks/outbox.js';
import { DEFAULT_RETRY_POLICY } from '../../src/logic/webhooks/retry.js';
import { verifyWebhook } from '../../src/logic/webhooks/verify.js';
import { newAccount, openTestDurable, type Teardown } from '../helpers/stores.js';

const T0 = Date.UTC(2024, 0, 1);
const SECRET = 'receiver-secret';

interface Received {
  readonly headers: http.IncomingHttpHeaders;
  readonly body: string;
  readonly status: number;
}

/** A receiver on 127.0.0.1 answering with the scripted statuses in turn (then 200). */
async function receiver(t: Teardown, script: number[] = []): Promise<{ url: string; received: Received[] }> {
  const received: Received[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const status = script.shift() ?? 200;
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), status });
      res.writeHead(status, { 'content-type': 'text/plain' }).end('x'.repeat(100_000));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/hooks`, received };
}

interface Harness {
  readonly stores: DurableStores;
  readonly accountId: string;
}

async function database(t: Teardown): Promise<Harness> {
  const stores = await openTestDurable(t, 'pglite');
  const account = await stores.accounts.create(newAccount());
  return { stores, accountId: account.id };
}

function startSender(t: Teardown, h: Harness, clock: ManualClock): { runtime: ActorRuntime; sender: WebhookSender } {
  const dispatcher = createOutboundDispatcher({ allowPrivate: true });
  const runtime = startActorSystem({ logger: silentLogger, clock });
  t.teardown(async () => {
    await runtime.stop();
    await dispatcher.close();
  });
  const { sender } = spawnWebhookActor(runtime, {
    store: h.stores.webhooks,
    logger: silentLogger,
    dispatcher,
    allowPrivate: true,
    // Mid-range jitter: every backoff is exactly its nominal value (1 s first).
    random: () => 0.5,
    retry: DEFAULT_RETRY_POLICY,
  });
  return { runtime, sender };
}

async function enqueue(h: Harness, url: string, executionId: string, event: Event): Promise<void> {
  const at = new Date(T0);
  const data =
    event === WebhookEvent.STARTED
      ? startedData(at)
      : completedData({ summary: 'done', details: {} }, { actualCostMicros: 20_000, actualDurationMs: 900, agentsUsed: 1 });
  await enqueueWebhook(h.stores.webhooks, { accountId: h.accountId, executionId, config: { url, secret: SECRET }, event, data, at });
}

async function waitFor(check: () => boolean | Promise<boolean>, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not reached in time');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

async function idle(sender: WebhookSender): Promise<void> {
  await waitFor(async () => {
    const status = await sender.status(1_000);
    return status.inFlight === 0 && !status.claiming;
  });
}

async function deliveries(h: Harness, executionId: string): Promise<WebhookDelivery[]> {
  return h.stores.webhooks.listByExecution(h.accountId, executionId);
}

t.test('an execution\'s events reach the receiver in order, signed', async (t) => {
  const h = await database(t);
  const hook = await receiver(t);
  await enqueue(h, hook.url, 'exec_order', WebhookEvent.STARTED);
  await enqueue(h, hook.url, 'exec_order', WebhookEvent.COMPLETED);
  const { sender } = startSender(t, h, createManualClock(T0));
  sender.kick();
  await waitFor(() => hook.received.length === 2);
  t.same(hook.received.map((r) => r.headers['x-service-event']), ['execution.started', 'execution.completed']);
  for (const r of hook.received) {
    const check = verifyWebhook(r.body, r.headers, { secret: SECRET });
    t.equal(check.ok, true, 'X-Service-Signature verifies against the raw body');
    t.ok(r.headers['webhook-signature']?.toString().startsWith('v1,'), 'Standard Webhooks signature present');
    t.equal(r.headers['webhook-id'], r.headers['x-service-delivery']);
  }
  await waitFor(async () => (await deliveries(h, 'exec_order')).every((d) => d.status === 'delivered'));
});

t.test('a 500 is retried after the backoff with the same delivery id, and the next event waits', async (t) => {
  const h = await database(t);
  const hook = await receiver(t, [500]);
  await enqueue(h, hook.url, 'exec_retry', WebhookEvent.STARTED);
  await enqueue(h, hook.url, 'exec_retry', WebhookEvent.COMPLETED);
  const clock = createManualClock(T0);
  const { sender } = startSender(t, h, clock);
  await waitFor(() => hook.received.length === 1);
  await idle(sender);
  const [first] = await deliveries(h, 'exec_retry');
  t.match(first, { status: 'pending', attempts: 1, lastStatusCode: 500, lastError: 'HTTP 500' });
  t.same(first?.nextAttemptAt, new Date(T0 + 1_000), 'first backoff is 1 s');
  t.equal(hook.received.length, 1, 'completed is held back while started is unfinished');

  clock.advance(1_000);
  await waitFor(() => hook.received.length === 3);
  const [a, b, c] = hook.received;
  t.equal(b?.headers['x-service-delivery'], a?.headers['x-service-delivery'], 'the retry keeps X-Service-Delivery');
  t.equal(b?.body, a?.body, 'the retry resends the same bytes');
  t.equal(c?.headers['x-service-event'], 'execution.completed');
  await waitFor(async () => (await deliveries(h, 'exec_retry')).every((d) => d.status === 'delivered'));
  t.match(await deliveries(h, 'exec_retry'), [{ attempts: 2, lastStatusCode: 200 }, { attempts: 1 }]);
});

t.test('a 400 is final: no retry', async (t) => {
  const h = await database(t);
  const hook = await receiver(t, [400]);
  await enqueue(h, hook.url, 'exec_400', WebhookEvent.STARTED);
  const clock = createManualClock(T0);
  const { sender } = startSender(t, h, clock);
  await waitFor(async () => (await deliveries(h, 'exec_400'))[0]?.status === 'failed');
  t.match(await deliveries(h, 'exec_400'), [{ status: 'failed', attempts: 1, lastStatusCode: 400, signingSecret: null }]);
  clock.advance(2 * 3_600_000);
  await idle(sender);
  t.equal(hook.received.length, 1);
});

t.test('a delivery gives up after its last attempt', async (t) => {
  const h = await database(t);
  const hook = await receiver(t, Array.from({ length: 8 }, () => 503));
  await enqueue(h, hook.url, 'exec_giveup', WebhookEvent.STARTED);
  const clock = createManualClock(T0);
  const { sender } = startSender(t, h, clock);
  for (let attempt = 1; attempt <= 8; attempt++) {
    await waitFor(() => hook.received.length === attempt);
    await idle(sender);
    clock.advance(60 * 60_000);
  }
  await waitFor(async () => (await deliveries(h, 'exec_giveup'))[0]?.status === 'failed');
  t.match(await deliveries(h, 'exec_giveup'), [{ status: 'failed', attempts: 8, lastStatusCode: 503, lastError: /gave up after 8 attempts/ }]);
  t.equal(hook.received.length, 8);
});

t.test('a delivery whose sender stopped after a failed attempt completes under a new actor system', async (t) => {
  const h = await database(t);
  const hook = await receiver(t, [503]);
  await enqueue(h, hook.url, 'exec_restart', WebhookEvent.STARTED);
  const first = startSender(t, h, createManualClock(T0));
  await waitFor(() => hook.received.length === 1);
  await idle(first.sender);
  t.match(await deliveries(h, 'exec_restart'), [{ status: 'pending', attempts: 1 }]);
  await first.runtime.stop();

  // A new process (or worker) on the same database, some seconds later.
  startSender(t, h, createManualClock(T0 + 5_000));
  await waitFor(() => hook.received.length === 2);
  t.equal(hook.received[1]?.headers['x-service-delivery'], hook.received[0]?.headers['x-service-delivery']);
  await waitFor(async () => (await deliveries(h, 'exec_restart'))[0]?.status === 'delivered');
  t.match(await deliveries(h, 'exec_restart'), [{ status: 'delivered', attempts: 2 }]);
});

t.test('an unreachable receiver is retried as a network error', async (t) => {
  const h = await database(t);
  const hook = await receiver(t);
  const closedUrl = 'http://127.0.0.1:1/hooks';
  await enqueue(h, closedUrl, 'exec_down', WebhookEvent.STARTED);
  const { sender } = startSender(t, h, createManualClock(T0));
  await waitFor(async () => (await deliveries(h, 'exec_down'))[0]?.attempts === 1);
  await idle(sender);
  t.match(await deliveries(h, 'exec_down'), [{ status: 'pending', lastStatusCode: null, lastError: /ECONNREFUSED/ }]);
  t.equal(hook.received.length, 0);
});

t.test('a plain-http URL is refused for good without allowPrivate', async (t) => {
  const h = await database(t);
  await enqueue(h, 'http://hooks.example.com/x', 'exec_policy', WebhookEvent.STARTED);
  const dispatcher = createOutboundDispatcher({ allowPrivate: false });
  const runtime = startActorSystem({ logger: silentLogger, clock: createManualClock(T0) });
  t.teardown(async () => {
    await runtime.stop();
    await dispatcher.close();
  });
  spawnWebhookActor(runtime, { store: h.stores.webhooks, logger: silentLogger, dispatcher, allowPrivate: false });
  await waitFor(async () => (await deliveries(h, 'exec_policy'))[0]?.status === 'failed');
  t.match(await deliveries(h, 'exec_policy'), [{ status: 'failed', lastError: /URL not allowed/ }]);
});
