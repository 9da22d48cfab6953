import t from 'tap';
import type { DurableStores } from '../../src/ports/durable.js';
import type { UsageEntry } from '../../src/domain/usage.js';
import { durableKinds, newAccount, newKey, openTestDurable } from '../helpers/stores.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
// Mid-hour, so windows (whole hours) and exact times agree in these tests.
const NOW = new Date('2025-06-15T12:30:00.000Z');

function entry(keyId: string, agoMs: number, endpoint = '/v1/agents', statusCode = 200): UsageEntry {
  return { keyId, at: new Date(NOW.getTime() - agoMs), endpoint, method: 'GET', statusCode, ipAddress: '203.0.113.7' };
}

async function freshKey(stores: DurableStores): Promise<string> {
  const account = await stores.accounts.create(newAccount());
  return (await stores.apiKeys.create(newKey(account.id))).id;
}

for (const kind of durableKinds()) {
  t.test(`usage (${kind})`, async (t) => {
    const stores = await openTestDurable(t, kind);

    t.test('activity counts each window and lists recent requests newest first', async (t) => {
      const keyId = await freshKey(stores);
      const other = await freshKey(stores);
      await stores.usage.recordBatch([
        entry(keyId, 10 * 60_000, '/v1/a'),
        entry(keyId, 2 * HOUR, '/v1/b', 404),
        entry(keyId, 3 * DAY, '/v1/c'),
        entry(keyId, 20 * DAY, '/v1/d'),
        entry(keyId, 40 * DAY, '/v1/old'),
        entry(other, 60_000, '/v1/other'),
      ]);
      // A second batch into the same hour adds to its counter.
      await stores.usage.recordBatch([entry(keyId, 5 * 60_000, '/v1/e', 201)]);

      const activity = await stores.usage.activity(keyId, NOW, 3);
      t.same(activity.usageStats, { last24h: 3, last7d: 4, last30d: 5 });
      t.equal(activity.lastUsedAt?.getTime(), NOW.getTime() - 5 * 60_000);
      t.same(
        activity.recentRequests.map((r) => [r.endpoint, r.statusCode]),
        [
          ['/v1/e', 201],
          ['/v1/a', 200],
          ['/v1/b', 404],
        ],
      );
      t.match(activity.recentRequests[0], { keyId, method: 'GET', ipAddress: '203.0.113.7', at: Date });
    });

    t.test('lastUsedAt never moves backwards when an older batch lands late', async (t) => {
      const keyId = await freshKey(stores);
      await stores.usage.recordBatch([entry(keyId, 60_000)]);
      await stores.usage.recordBatch([entry(keyId, 30 * 60_000)]);
      const activity = await stores.usage.activity(keyId, NOW, 10);
      t.equal(activity.lastUsedAt?.getTime(), NOW.getTime() - 60_000);
      t.equal(activity.usageStats.last24h, 2);
    });

    t.test('an unused key has empty activity', async (t) => {
      const keyId = await freshKey(stores);
      t.same(await stores.usage.activity(keyId, NOW, 10), {
        keyId,
        lastUsedAt: null,
        usageStats: { last24h: 0, last7d: 0, last30d: 0 },
        recentRequests: [],
      });
    });

    t.test('entries of a deleted key are dropped without failing the batch', async (t) => {
      const account = await stores.accounts.create(newAccount());
      const kept = await stores.apiKeys.create(newKey(account.id));
      const gone = await stores.apiKeys.create(newKey(account.id));
      await stores.apiKeys.delete(account.id, gone.id);
      await stores.usage.recordBatch([entry(kept.id, 60_000), entry(gone.id, 60_000)]);
      t.equal((await stores.usage.activity(kept.id, NOW, 10)).usageStats.last24h, 1);
    });

    t.test('deleting a key removes its usage rows', async (t) => {
      const account = await stores.accounts.create(newAccount());
      const key = await stores.apiKeys.create(newKey(account.id));
      await stores.usage.recordBatch([entry(key.id, 60_000)]);
      await stores.apiKeys.delete(account.id, key.id);
      const activity = await stores.usage.activity(key.id, NOW, 10);
      t.same(activity.usageStats, { last24h: 0, last7d: 0, last30d: 0 });
      t.same(activity.recentRequests, []);
    });

    t.test('prune keeps the 100 most recent requests per key and nothing older than 30 days', async (t) => {
      const keyId = await freshKey(stores);
      const batch: UsageEntry[] = [];
      for (let i = 0; i < 120; i++) batch.push(entry(keyId, i * 60_000, `/v1/r${i}`));
      batch.push(entry(keyId, 35 * DAY, '/v1/ancient'));
      const small = await freshKey(stores);
      batch.push(entry(small, 60_000, '/v1/recent'), entry(small, 31 * DAY, '/v1/stale'));
      await stores.usage.recordBatch(batch);

      // Other tests' rows share the table, so only a lower bound holds for the total removed. The
      // 20 requests beyond the kept 100 are never logged (recordBatch trims per key), so what
      // prune finds is the ancient row, the stale one and their hourly counters.
      const removed = await stores.usage.prune(NOW);
      t.ok(removed >= 1 + 1 + 1, `removed ${removed}`);

      const activity = await stores.usage.activity(keyId, NOW, 1000);
      t.equal(activity.recentRequests.length, 100);
      t.equal(activity.recentRequests[0]?.endpoint, '/v1/r0');
      t.equal(activity.recentRequests[99]?.endpoint, '/v1/r99');
      // Hourly counters older than 31 days are gone; within 30 days they are untouched.
      t.equal(activity.usageStats.last30d, 120);
      t.same(
        (await stores.usage.activity(small, NOW, 10)).recentRequests.map((r) => r.endpoint),
        ['/v1/recent'],
      );
      t.equal(await stores.usage.prune(NOW), 0, 'a second prune finds nothing');
    });

    t.test('an empty batch is a no-op', async (t) => {
      await t.resolves(stores.usage.recordBatch([]));
    });
  });
}
