/**
 * The Concurrency facade (src/services/limits/concurrency.ts) as a request and as background
 * work see it: a request's slot is bounded by the store deadline and given back when it comes
 * too late; limits are read from the account when the caller has none. What the actor does with
 * promotions is in test/actors/concurrency-queue-actor.test.ts.
 */
import t from 'tap';
import { startActorSystem } from '../../src/actors/root-supervisor.js';
import { memoryCoordination } from '../../src/adapters/stores/redis/index.js';
import type { Account } from '../../src/domain/accounts.js';
import type { SlotAcquisition } from '../../src/domain/limits.js';
import type { Coordination } from '../../src/ports/coordination.js';
import { startConcurrency, type ConcurrencyOptions } from '../../src/services/limits/concurrency.js';
import { recordingLogger } from '../actors/fixtures/helpers.js';

const LIMITS = { concurrent: 1, queueSize: 1 };
const DEADLINE_MS = 20;

type SlotStore = ConcurrencyOptions['store'];

async function until(check: () => boolean): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not reached');
    await new Promise((r) => setTimeout(r, 5));
  }
}

/** The in-process slots, with `acquireSlot` replaced, recording every release that reaches the store. */
function slotStore(acquireSlot?: SlotStore['acquireSlot']): { store: SlotStore; released: string[] } {
  const memory: Coordination = memoryCoordination();
  const released: string[] = [];
  const store: SlotStore = {
    acquireSlot: acquireSlot ?? ((...args) => memory.acquireSlot(...args)),
    releaseSlot: (accountId, holderId, leaseMs, nowMs) => (released.push(holderId), memory.releaseSlot(accountId, holderId, leaseMs, nowMs)),
    renewSlots: (...args) => memory.renewSlots(...args),
    slotState: (...args) => memory.slotState(...args),
  };
  return { store, released };
}

function account(id: string, tier: Account['tier']): Account {
  return { id, tier, limits: null } as unknown as Account;
}

function setup(t: { teardown(fn: () => unknown): void }, store: SlotStore, accounts: Record<string, Account> = {}, requestAccounts = accounts) {
  const runtime = startActorSystem({ logger: recordingLogger().logger });
  t.teardown(() => runtime.stop());
  return startConcurrency(runtime, {
    store,
    accounts: { get: async (id) => accounts[id] ?? null },
    onRequest: { accounts: { get: async (id) => requestAccounts[id] ?? null }, acquireDeadlineMs: DEADLINE_MS },
    leaseMs: 60_000,
    scanEveryMs: 60_000,
    logger: recordingLogger().logger,
  });
}

t.test("a request's slot not granted within the deadline is given back, and the request fails as store-unavailable", async (t) => {
  const { store, released } = slotStore(() => new Promise<never>(() => undefined));
  const concurrency = setup(t, store);
  await t.rejects(concurrency.acquire('acct_1', 'exec_1', { limits: LIMITS, onRequest: true }), { code: 'STORE_DEADLINE_EXCEEDED', operation: 'concurrency.acquire' });
  await until(() => released.includes('exec_1'));
  t.same(released, ['exec_1'], 'released so a late grant is not held until its lease lapses');
});

t.test('a grant in time, or a store error, reaches the request without a release', async (t) => {
  const ok = slotStore();
  t.same(await setup(t, ok.store).acquire('acct_1', 'exec_2', { limits: LIMITS, onRequest: true }), { status: 'started', promoted: [] });
  const down = slotStore(async () => {
    throw Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
  });
  await t.rejects(setup(t, down.store).acquire('acct_1', 'exec_3', { limits: LIMITS, onRequest: true }), { code: 'ECONNREFUSED' });
  await new Promise((r) => setTimeout(r, DEADLINE_MS * 2));
  t.same([...ok.released, ...down.released], [], 'a call that failed took nothing');
});

t.test('background work waits for a slow store past the request deadline', async (t) => {
  const granted: SlotAcquisition = { status: 'started', promoted: [] };
  const { store, released } = slotStore(() => new Promise((resolve) => setTimeout(() => resolve(granted), DEADLINE_MS * 3)));
  t.same(await setup(t, store).acquire('acct_1', 'run_1', { limits: LIMITS }), granted);
  t.same(released, []);
});

t.test("without limits from the caller the account's are read; a deleted account's holder goes on without a slot", async (t) => {
  const { store } = slotStore();
  const concurrency = setup(t, store, { acct_dev: account('acct_dev', 'DEVELOPER') });
  t.same(await concurrency.limits('acct_dev'), { limits: { concurrent: 5, queueSize: 20 }, tier: 'DEVELOPER' });
  for (let i = 0; i < 5; i++) t.equal((await concurrency.acquire('acct_dev', `run_${i}`)).status, 'started');
  t.same(await concurrency.acquire('acct_dev', 'run_5'), { status: 'queued', position: 1, promoted: [] }, "the tier's five slots, then the queue");
  t.equal(await concurrency.limits('acct_gone'), null);
  t.same(await concurrency.acquire('acct_gone', 'run_x'), { status: 'started', promoted: [] });
  t.equal(await concurrency.state('acct_gone', 'run_x'), 'none', 'nothing was taken');
});

t.test("a request reads the account through the request path's store", async (t) => {
  const { store } = slotStore();
  const concurrency = setup(t, store, { acct_1: account('acct_1', 'DEVELOPER') }, { acct_1: account('acct_1', 'BUSINESS') });
  t.equal((await concurrency.limits('acct_1'))?.tier, 'DEVELOPER');
  t.equal((await concurrency.limits('acct_1', { onRequest: true }))?.tier, 'BUSINESS');
});
