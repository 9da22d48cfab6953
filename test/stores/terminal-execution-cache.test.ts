import t from 'tap';
import type { ExecutionRecord } from '../../src/domain/executions.js';
import type { ExecutionStore } from '../../src/ports/executions.js';
import { withTerminalExecutionCache } from '../../src/adapters/stores/terminal-execution-cache.js';

function fakeStore(records: Map<string, Partial<ExecutionRecord>>) {
  let reads = 0;
  const store: Pick<ExecutionStore, 'get'> = {
    async get(accountId, id) {
      reads++;
      const r = records.get(id);
      return r !== undefined && r.accountId === accountId ? (r as ExecutionRecord) : null;
    },
  };
  return { store, reads: () => reads };
}

t.test('a finished execution is read from the store once', async (t) => {
  const { store, reads } = fakeStore(new Map([['e1', { id: 'e1', accountId: 'a', status: 'COMPLETED' }]]));
  const cached = withTerminalExecutionCache(store);
  t.equal((await cached.get('a', 'e1'))?.status, 'COMPLETED');
  t.equal((await cached.get('a', 'e1'))?.status, 'COMPLETED');
  t.equal(reads(), 1);
});

t.test('a live execution is read from the store every time', async (t) => {
  const records = new Map<string, Partial<ExecutionRecord>>([['e2', { id: 'e2', accountId: 'a', status: 'RUNNING' }]]);
  const { store, reads } = fakeStore(records);
  const cached = withTerminalExecutionCache(store);
  await cached.get('a', 'e2');
  records.set('e2', { id: 'e2', accountId: 'a', status: 'COMPLETED' });
  t.equal((await cached.get('a', 'e2'))?.status, 'COMPLETED', 'the change is seen');
  t.equal(reads(), 2);
});

t.test("a cached execution is still not found for another account", async (t) => {
  const { store } = fakeStore(new Map([['e3', { id: 'e3', accountId: 'a', status: 'FAILED' }]]));
  const cached = withTerminalExecutionCache(store);
  await cached.get('a', 'e3');
  t.equal(await cached.get('b', 'e3'), null);
});
