import t from 'tap';
import { completedData, startedData, WebhookEvent } from '../../src/logic/webhooks/events.js';
import { buildDelivery, enqueueWebhook, toDeliveryView } from '../../src/logic/webhooks/outbox.js';
import type { DurableStores } from '../../src/ports/durable.js';
import { durableKinds, newAccount, openTestDurable, type Teardown } from '../helpers/stores.js';

const T0 = new Date('2024-01-01T00:00:00Z');
const at = (s: number): Date => new Date(T0.getTime() + s * 1000);
const LEASE = 60_000;

async function setup(t: Teardown, kind: 'pglite' | 'postgres'): Promise<{ stores: DurableStores; accountId: string }> {
  const stores = await openTestDurable(t, kind);
  const account = await stores.accounts.create(newAccount());
  return { stores, accountId: account.id };
}

function started(accountId: string, executionId: string, when = T0) {
  return buildDelivery({
    accountId,
    executionId,
    config: { url: 'https://hooks.example.com/x', secret: 's3cret' },
    event: WebhookEvent.STARTED,
    data: startedData(when),
    at: when,
  });
}

function completed(accountId: string, executionId: string, when = T0) {
  return buildDelivery({
    accountId,
    executionId,
    config: { url: 'https://hooks.example.com/x', secret: 's3cret' },
    event: WebhookEvent.COMPLETED,
    data: completedData({ summary: 'ok', details: {} }, { actualCostMicros: 50_000, actualDurationMs: 1200, agentsUsed: 1 }),
    at: when,
  });
}

const record = (attempt: number, when: Date, statusCode: number | null, error: string | null = null) => ({ attempt, at: when, statusCode, error });

for (const kind of durableKinds()) {
  t.test(`${kind}: an enqueued delivery keeps its exact body and headers and gets sequence 1`, async (t) => {
    const { stores, accountId } = await setup(t, kind);
    const input = started(accountId, 'exec_a');
    const stored = await stores.webhooks.enqueue(input);
    t.equal(stored.body, input.body);
    t.same(stored.headers, input.headers);
    t.equal(stored.sequence, 1);
    t.equal(stored.status, 'pending');
    t.equal(stored.attempts, 0);
    t.equal(stored.signingSecret, 's3cret');
  });

  t.test(`${kind}: enqueueing the same event of an execution twice keeps the first`, async (t) => {
    const { stores, accountId } = await setup(t, kind);
    const first = await stores.webhooks.enqueue(started(accountId, 'exec_a'));
    const second = await stores.webhooks.enqueue(started(accountId, 'exec_a'));
    t.equal(second.id, first.id);
    t.equal((await stores.webhooks.listByExecution(accountId, 'exec_a')).length, 1);
  });

  t.test(`${kind}: a claim takes due deliveries once, counting the attempt`, async (t) => {
    const { stores, accountId } = await setup(t, kind);
    await stores.webhooks.enqueue(started(accountId, 'exec_a'));
    await stores.webhooks.enqueue(started(accountId, 'exec_b', at(30)));
    const claimed = await stores.webhooks.claimDue(at(1), 10, LEASE);
    t.same(claimed.map((d) => [d.executionId, d.status, d.attempts]), [['exec_a', 'delivering', 1]]);
    t.same(await stores.webhooks.claimDue(at(2), 10, LEASE), [], 'not claimed twice; exec_b not yet due');
  });

  t.test(`${kind}: a later event waits until the earlier one of its execution is finished`, async (t) => {
    const { stores, accountId } = await setup(t, kind);
    await stores.webhooks.enqueue(started(accountId, 'exec_a'));
    await stores.webhooks.enqueue(completed(accountId, 'exec_a'));
    const [first, ...rest] = await stores.webhooks.claimDue(at(1), 10, LEASE);
    t.equal(first?.event, 'execution.started');
    t.same(rest, []);
    if (first === undefined) return;
    t.equal(await stores.webhooks.scheduleRetry(first.id, record(1, at(1), 500), at(5)), true);
    t.same(await stores.webhooks.claimDue(at(10), 10, LEASE).then((ds) => ds.map((d) => d.event)), ['execution.started'], 'the retry goes first');
    t.equal(await stores.webhooks.markFailed(first.id, record(2, at(10), 400)), true);
    const next = await stores.webhooks.claimDue(at(11), 10, LEASE);
    t.same(next.map((d) => [d.event, d.sequence]), [['execution.completed', 2]], 'a finally failed event no longer blocks');
  });

  t.test(`${kind}: deliveries of different executions do not wait for each other`, async (t) => {
    const { stores, accountId } = await setup(t, kind);
    await stores.webhooks.enqueue(started(accountId, 'exec_a'));
    await stores.webhooks.enqueue(started(accountId, 'exec_b'));
    t.equal((await stores.webhooks.claimDue(at(1), 10, LEASE)).length, 2);
  });

  t.test(`${kind}: a retry is scheduled with its status and error and is claimed again when due`, async (t) => {
    const { stores, accountId } = await setup(t, kind);
    const d = await stores.webhooks.enqueue(started(accountId, 'exec_a'));
    await stores.webhooks.claimDue(at(0), 10, LEASE);
    await stores.webhooks.scheduleRetry(d.id, record(1, at(0), 503, 'HTTP 503'), at(2));
    const [row] = await stores.webhooks.listByExecution(accountId, 'exec_a');
    t.match(row, { status: 'pending', attempts: 1, lastStatusCode: 503, lastError: 'HTTP 503' });
    t.same(row?.nextAttemptAt, at(2));
    t.same(await stores.webhooks.nextDueAt(), at(2));
    t.same(await stores.webhooks.claimDue(at(1), 10, LEASE), [], 'not before its time');
    t.match(await stores.webhooks.claimDue(at(2), 10, LEASE), [{ id: d.id, attempts: 2 }]);
  });

  t.test(`${kind}: delivered and failed deliveries drop the signing secret`, async (t) => {
    const { stores, accountId } = await setup(t, kind);
    const a = await stores.webhooks.enqueue(started(accountId, 'exec_a'));
    const b = await stores.webhooks.enqueue(started(accountId, 'exec_b'));
    await stores.webhooks.claimDue(at(0), 10, LEASE);
    await stores.webhooks.markDelivered(a.id, record(1, at(1), 200));
    await stores.webhooks.markFailed(b.id, record(1, at(1), 410, 'HTTP 410'));
    const [delivered] = await stores.webhooks.listByExecution(accountId, 'exec_a');
    const [failed] = await stores.webhooks.listByExecution(accountId, 'exec_b');
    t.match(delivered, { status: 'delivered', signingSecret: null, lastStatusCode: 200 });
    t.same(delivered?.deliveredAt, at(1));
    t.match(failed, { status: 'failed', signingSecret: null, lastError: 'HTTP 410', deliveredAt: null });
    t.equal(await stores.webhooks.nextDueAt(), null);
  });

  t.test(`${kind}: a lapsed claim is taken over and the old attempt can no longer record`, async (t) => {
    const { stores, accountId } = await setup(t, kind);
    const d = await stores.webhooks.enqueue(started(accountId, 'exec_a'));
    await stores.webhooks.claimDue(at(0), 10, LEASE);
    t.same(await stores.webhooks.claimDue(at(30), 10, LEASE), [], 'lease still held');
    const [retaken] = await stores.webhooks.claimDue(at(61), 10, LEASE);
    t.match(retaken, { id: d.id, attempts: 2 });
    t.equal(await stores.webhooks.markDelivered(d.id, record(1, at(62), 200)), false, 'the stale attempt is ignored');
    t.equal(await stores.webhooks.markDelivered(d.id, record(2, at(62), 200)), true);
  });

  t.test(`${kind}: a claim takes at most the limit, oldest due first`, async (t) => {
    const { stores, accountId } = await setup(t, kind);
    await stores.webhooks.enqueue(started(accountId, 'exec_c', at(3)));
    await stores.webhooks.enqueue(started(accountId, 'exec_a', at(1)));
    await stores.webhooks.enqueue(started(accountId, 'exec_b', at(2)));
    const claimed = await stores.webhooks.claimDue(at(10), 2, LEASE);
    t.same(claimed.map((d) => d.executionId), ['exec_a', 'exec_b']);
  });

  t.test(`${kind}: the delivery log is per account and shows no body or secret`, async (t) => {
    const { stores, accountId } = await setup(t, kind);
    await enqueueWebhook(stores.webhooks, {
      accountId,
      executionId: 'exec_a',
      config: { url: 'https://hooks.example.com/x', secret: 'k' },
      event: WebhookEvent.STARTED,
      data: startedData(T0),
      at: T0,
    });
    t.same(await stores.webhooks.listByExecution('acct_other', 'exec_a'), []);
    const [row] = await stores.webhooks.listByExecution(accountId, 'exec_a');
    if (row === undefined) throw new Error('no delivery');
    const view = toDeliveryView(row);
    t.same(Object.keys(view).sort(), [
      'attempts', 'createdAt', 'deliveredAt', 'event', 'id', 'lastAttemptAt', 'lastError', 'lastStatusCode', 'maxAttempts', 'nextAttemptAt', 'status', 'url',
    ]);
    t.equal(view.nextAttemptAt, T0.toISOString());
  });

  t.test(`${kind}: an event the webhook did not ask for is not enqueued`, async (t) => {
    const { stores, accountId } = await setup(t, kind);
    const result = await enqueueWebhook(stores.webhooks, {
      accountId,
      executionId: 'exec_a',
      config: { url: 'https://hooks.example.com/x', events: ['execution.completed'] },
      event: WebhookEvent.STARTED,
      data: startedData(T0),
      at: T0,
    });
    t.equal(result, null);
    t.same(await stores.webhooks.listByExecution(accountId, 'exec_a'), []);
  });
}
