/**
 * Status reads from memory (src/services/orchestration/execution-records.ts): what a reader sees
 * and how many store round trips it costs, with the store faked and the status channel real
 * (the in-process coordination bus, shared by two "workers").
 */
import t, { type Test } from 'tap';
import type { ExecutionRecord, ExecutionStatusName } from '../../src/domain/executions.js';
import type { ExecutionStore } from '../../src/ports/executions.js';
import { createMemoryBus, memoryCoordination } from '../../src/adapters/stores/redis/index.js';
import { startExecutionRecords } from '../../src/services/orchestration/execution-records.js';
import { STATUS_CHANNEL } from '../../src/services/orchestration/status-watch.js';

function record(id: string, status: ExecutionStatusName, accountId = 'acct'): ExecutionRecord {
  return { id, accountId, status, progress: null } as unknown as ExecutionRecord;
}

/** The durable store as one table of rows, counting reads. */
function fakeStore(rows = new Map<string, ExecutionRecord>()) {
  const calls = { get: 0, getById: 0 };
  const store = {
    async insert(r: ExecutionRecord) {
      rows.set(r.id, r);
      return null;
    },
    async get(accountId: string, id: string) {
      calls.get++;
      const r = rows.get(id);
      return r !== undefined && r.accountId === accountId ? r : null;
    },
    async getById(id: string) {
      calls.getById++;
      return rows.get(id) ?? null;
    },
    async transition(id: string, from: readonly ExecutionStatusName[], status: ExecutionStatusName) {
      const r = rows.get(id);
      if (r === undefined || !from.includes(r.status)) return null;
      const next = { ...r, status };
      rows.set(id, next);
      return next;
    },
    async updateProgress(id: string, progress: NonNullable<ExecutionRecord['progress']>) {
      const r = rows.get(id);
      if (r !== undefined && r.status === 'RUNNING') rows.set(id, { ...r, progress });
    },
  } as unknown as ExecutionStore;
  return { store, rows, calls };
}

async function setup(t: Test) {
  const bus = createMemoryBus();
  const here = memoryCoordination({ bus });
  const elsewhere = memoryCoordination({ bus });
  const records = await startExecutionRecords(here);
  t.teardown(() => records.stop());
  const fake = fakeStore();
  return { records, store: records.tracked(fake.store), fake, elsewhere };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

t.test('an execution this worker runs is read from memory through every transition', async (t) => {
  const { store, fake } = await setup(t);
  await store.insert(record('e1', 'PENDING'));
  t.equal((await store.get('acct', 'e1'))?.status, 'PENDING');
  await store.transition('e1', ['PENDING'], 'RUNNING', {});
  await store.updateProgress('e1', { completed: 1, total: 2, currentAgent: 'b', runningAgents: ['b'] });
  const running = await store.get('acct', 'e1');
  t.equal(running?.status, 'RUNNING');
  t.equal(running?.progress?.currentAgent, 'b', 'progress is seen');
  await store.transition('e1', ['RUNNING'], 'COMPLETED', {});
  t.equal((await store.get('acct', 'e1'))?.status, 'COMPLETED');
  t.equal(fake.calls.get, 0, 'no store read');
});

t.test('another account never sees it, from memory either', async (t) => {
  const { store } = await setup(t);
  await store.insert(record('e2', 'PENDING'));
  t.equal(await store.get('other', 'e2'), null);
});

t.test('a transition written by another worker drops the copy, and the next read sees the store', async (t) => {
  const { store, fake, elsewhere } = await setup(t);
  await store.insert(record('e3', 'PENDING'));
  await store.transition('e3', ['PENDING'], 'RUNNING', {});
  // Another worker cancels it (its owner did not answer in time) and publishes the transition.
  fake.rows.set('e3', record('e3', 'CANCELLED'));
  await elsewhere.publish(STATUS_CHANNEL, 'CANCELLED e3');
  await settle();
  t.equal((await store.get('acct', 'e3'))?.status, 'CANCELLED');
  t.equal(fake.calls.get, 1, 'read from the store once');
  t.equal((await store.get('acct', 'e3'))?.status, 'CANCELLED');
  t.equal(fake.calls.get, 1, 'then from memory: it is finished');
});

t.test("this worker's own published transitions keep the copy", async (t) => {
  const { store, fake, elsewhere } = await setup(t);
  await store.insert(record('e4', 'PENDING'));
  await store.transition('e4', ['PENDING'], 'RUNNING', {});
  await elsewhere.publish(STATUS_CHANNEL, 'RUNNING e4');
  await settle();
  t.equal((await store.get('acct', 'e4'))?.status, 'RUNNING');
  t.equal(fake.calls.get, 0);
});

t.test('a live execution whose owner is not here (queued, or stopped) is read from the store', async (t) => {
  const { records, store, fake } = await setup(t);
  await store.insert(record('e5', 'PENDING'));
  records.released('e5');
  t.equal((await store.get('acct', 'e5'))?.status, 'PENDING');
  t.equal((await store.get('acct', 'e5'))?.status, 'PENDING');
  t.equal(fake.calls.get, 2, 'every read goes to the store');
});

t.test('a live execution read from the store is not kept; a finished one is', async (t) => {
  const { store, fake } = await setup(t);
  fake.rows.set('e6', record('e6', 'RUNNING'));
  await store.get('acct', 'e6');
  await store.get('acct', 'e6');
  t.equal(fake.calls.get, 2);
  fake.rows.set('e6', record('e6', 'FAILED'));
  await store.get('acct', 'e6');
  await store.get('acct', 'e6');
  t.equal(fake.calls.get, 3, 'the finished record is read once');
});

t.test('a transition another writer won drops the copy', async (t) => {
  const { store, fake } = await setup(t);
  await store.insert(record('e7', 'PENDING'));
  await store.transition('e7', ['PENDING'], 'RUNNING', {});
  fake.rows.set('e7', record('e7', 'CANCELLED'));
  t.equal(await store.transition('e7', ['RUNNING'], 'COMPLETED', {}), null);
  t.equal((await store.get('acct', 'e7'))?.status, 'CANCELLED');
});
