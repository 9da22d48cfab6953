import t from 'tap';
import type { ConcurrencyQueue } from '../../src/actors/concurrency-queue-protocol.js';
import { withAcquireDeadline } from '../../src/services/limits/bounded-concurrency.js';
import type { SlotAcquisition } from '../../src/domain/limits.js';

function fakeQueue(acquire: () => Promise<SlotAcquisition>): { queue: ConcurrencyQueue; released: string[] } {
  const released: string[] = [];
  const queue = {
    limiter: {} as ConcurrencyQueue['limiter'],
    acquire,
    release: (_accountId: string, holderId: string) => void released.push(holderId),
    renew: async () => [],
    addStarter: () => undefined,
  } satisfies ConcurrencyQueue;
  return { queue, released };
}

const limits = { concurrent: 1, queueSize: 1 };

t.test('a slot not granted within the deadline is given back, and the request fails as store-unavailable', async (t) => {
  const { queue, released } = fakeQueue(() => new Promise<never>(() => undefined));
  const bounded = withAcquireDeadline(queue, 20);
  await t.rejects(bounded.acquire('acct_1', 'exec_1', limits), { code: 'STORE_DEADLINE_EXCEEDED', operation: 'concurrency.acquire' });
  t.same(released, ['exec_1'], 'released so a late grant is not held until its lease lapses');
});

t.test('a grant in time, or a store error, is passed through without a release', async (t) => {
  const granted: SlotAcquisition = { status: 'started', promoted: [] };
  const ok = fakeQueue(async () => granted);
  t.same(await withAcquireDeadline(ok.queue, 1_000).acquire('acct_1', 'exec_2', limits), granted);
  t.same(ok.released, []);
  const down = fakeQueue(async () => {
    throw Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
  });
  await t.rejects(withAcquireDeadline(down.queue, 1_000).acquire('acct_1', 'exec_3', limits), { code: 'ECONNREFUSED' });
  t.same(down.released, [], 'a call that failed took nothing');
});
