import t from 'tap';
import { durableKinds, newAccount, newKey, openTestDurable } from '../helpers/stores.js';

for (const kind of durableKinds()) {
  t.test(`accounts and keys (${kind})`, async (t) => {
    const stores = await openTestDurable(t, kind);

    t.test('an account round trips with its limits and fee', async (t) => {
      const input = newAccount({
        tier: 'ENTERPRISE',
        limits: { requestsPerMinute: 500, requestsPerDay: 10_000, concurrentExecutions: 7, queueSize: 70 },
        feeBasisPoints: 250,
      });
      const created = await stores.accounts.create(input);
      t.match(created, { ...input, createdAt: Date });
      t.same(await stores.accounts.get(input.id), created);
      t.equal(await stores.accounts.get('acct_missing'), null);
    });

    t.test('a key round trips and findByHash joins its account', async (t) => {
      const account = await stores.accounts.create(newAccount({ tier: 'BUSINESS' }));
      const expiresAt = new Date(Date.now() + 86_400_000);
      const input = newKey(account.id, { expiresAt, ipWhitelist: ['10.0.0.0/8', '127.0.0.1'], permissions: ['*'] });
      const created = await stores.apiKeys.create(input);
      t.match(created, { ...input, isActive: true, lastUsedAt: null, createdAt: Date });
      t.equal(created.expiresAt?.getTime(), expiresAt.getTime());

      const found = await stores.apiKeys.findByHash(input.keyHash);
      t.same(found, { key: created, account });
      t.equal(await stores.apiKeys.findByHash('0'.repeat(64)), null);
    });

    t.test('keys are listed newest first, per account', async (t) => {
      const account = await stores.accounts.create(newAccount());
      const other = await stores.accounts.create(newAccount());
      const first = await stores.apiKeys.create(newKey(account.id, { name: 'first' }));
      const second = await stores.apiKeys.create(newKey(account.id, { name: 'second' }));
      await stores.apiKeys.create(newKey(other.id));
      const listed = await stores.apiKeys.listByAccount(account.id);
      t.same(
        listed.map((k) => k.id),
        [second.id, first.id],
      );
    });

    t.test("another account's key is invisible to get, setActive and delete", async (t) => {
      const owner = await stores.accounts.create(newAccount());
      const stranger = await stores.accounts.create(newAccount());
      const key = await stores.apiKeys.create(newKey(owner.id));
      t.equal(await stores.apiKeys.get(stranger.id, key.id), null);
      t.equal(await stores.apiKeys.setActive(stranger.id, key.id, false), null);
      t.equal(await stores.apiKeys.delete(stranger.id, key.id), null);
      t.same(await stores.apiKeys.get(owner.id, key.id), key);
    });

    t.test('a deactivated key is still found by hash, marked inactive', async (t) => {
      const account = await stores.accounts.create(newAccount());
      const key = await stores.apiKeys.create(newKey(account.id));
      const updated = await stores.apiKeys.setActive(account.id, key.id, false);
      t.equal(updated?.isActive, false);
      t.equal((await stores.apiKeys.findByHash(key.keyHash))?.key.isActive, false);
    });

    t.test('a deleted key is gone', async (t) => {
      const account = await stores.accounts.create(newAccount());
      const key = await stores.apiKeys.create(newKey(account.id));
      t.same(await stores.apiKeys.delete(account.id, key.id), key);
      t.equal(await stores.apiKeys.get(account.id, key.id), null);
      t.equal(await stores.apiKeys.findByHash(key.keyHash), null);
      t.same(await stores.apiKeys.listByAccount(account.id), []);
      t.equal(await stores.apiKeys.delete(account.id, key.id), null);
    });

    t.test('a duplicate key hash is refused', async (t) => {
      const account = await stores.accounts.create(newAccount());
      const key = await stores.apiKeys.create(newKey(account.id));
      await t.rejects(stores.apiKeys.create(newKey(account.id, { keyHash: key.keyHash })), { code: '23505' });
    });

    t.test('ping answers', async (t) => {
      await t.resolves(stores.ping());
    });
  });
}
