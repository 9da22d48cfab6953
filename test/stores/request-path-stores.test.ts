import t from 'tap';
import type { Coordination } from '../../src/ports/coordination.js';
import type { DurableStores } from '../../src/ports/durable.js';
import { requestPathStores } from '../../src/adapters/stores/request-path-stores.js';

/** A port whose every method never answers (a store that stopped responding). */
function hung<T>(): T {
  const methods = new Map<PropertyKey, () => Promise<never>>();
  return new Proxy({} as Record<PropertyKey, unknown>, {
    get(_target, key) {
      let method = methods.get(key);
      if (method === undefined) {
        method = () => new Promise<never>(() => undefined);
        methods.set(key, method);
      }
      return method;
    },
  }) as T;
}

function hungDurable(): DurableStores {
  const ports = ['accounts', 'apiKeys', 'usage', 'webhooks', 'agents', 'executions', 'idempotency', 'workflows', 'workflowRuns', 'approvals'];
  const durable: Record<string, unknown> = Object.fromEntries(ports.map((port) => [port, hung()]));
  durable.ping = () => new Promise<never>(() => undefined);
  durable.close = async () => undefined;
  return durable as unknown as DurableStores;
}

/** Settles within `ms`, or 'pending'. */
async function within(ms: number, work: Promise<unknown>): Promise<'rejected' | 'resolved' | 'pending'> {
  return Promise.race([
    work.then(
      () => 'resolved' as const,
      () => 'rejected' as const,
    ),
    new Promise<'pending'>((resolve) => setTimeout(() => resolve('pending'), ms)),
  ]);
}

t.test('request-path calls past the deadline reject; others are left to their own retries', async (t) => {
  const { durable, coordination } = requestPathStores({ durable: hungDurable(), coordination: hung<Coordination>() }, { durableMs: 20, coordinationMs: 20 });
  const limits = { perMinute: 1, perDay: 1 };
  const bounded: Array<[string, () => Promise<unknown>]> = [
    ['apiKeys.findByHash', () => durable.apiKeys.findByHash('h')],
    ['executions.insert', () => durable.executions.insert({} as never, null)],
    ['executions.get', () => durable.executions.get('a', 'e')],
    ['idempotency.claim', () => durable.idempotency.claim('a', 'k', 'h', 1)],
    ['agents.listVisible', () => durable.agents.listVisible('a', { limit: 1 })],
    ['workflows.getVisible', () => durable.workflows.getVisible('a', 's')],
    ['ping', () => durable.ping()],
    ['coordination.rateLimit', () => coordination.rateLimit('a', limits, 0)],
    ['coordination.acquireSlot', () => coordination.acquireSlot('a', 'h', { concurrent: 1, queueSize: 1 }, 1, 0)],
  ];
  for (const [name, call] of bounded) t.equal(await within(1_000, call()), 'rejected', `${name} is bounded`);
  // A late landing of these would need a follow-up the failed request never sends.
  const unbounded: Array<[string, () => Promise<unknown>]> = [
    ['apiKeys.setActive', () => durable.apiKeys.setActive('a', 'k', false)],
    ['workflowRuns.insert', () => durable.workflowRuns.insert({} as never, 'o', 1)],
    ['approvals.decide', () => durable.approvals.decide('p', 'approved', null, new Date())],
    ['usage.recordBatch', () => durable.usage.recordBatch([])],
    ['coordination.subscribe', () => coordination.subscribe('c', () => undefined)],
    ['coordination.followEvents', () => coordination.followEvents('s', 0, () => undefined)],
  ];
  for (const [name, call] of unbounded) t.equal(await within(100, call()), 'pending', `${name} is not bounded`);
});

t.test('embedded stores are not bounded', async (t) => {
  const stores = { durable: hungDurable(), coordination: hung<Coordination>() };
  const same = requestPathStores(stores, { durableMs: null, coordinationMs: null });
  t.equal(same.durable, stores.durable);
  t.equal(same.coordination, stores.coordination);
});
