import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { openDurableStores } from '../../src/adapters/stores/sql/index.js';
import { newAccount, newKey } from '../helpers/stores.js';

t.test('embedded PGlite data survives close and reopen', async (t) => {
  const dataDir = path.join(await mkdtemp(path.join(os.tmpdir(), 'baton-pglite-')), 'nested', 'data');
  t.teardown(() => rm(path.dirname(path.dirname(dataDir)), { recursive: true, force: true }));
  const config = { databaseUrl: null, dataDir, databaseSchema: 'baton' };

  const first = await openDurableStores(config);
  const account = await first.accounts.create(newAccount({ name: 'Persistent' }));
  const key = await first.apiKeys.create(newKey(account.id));
  await first.close();

  const second = await openDurableStores(config);
  t.teardown(() => second.close());
  t.same(await second.accounts.get(account.id), account);
  t.same((await second.apiKeys.findByHash(key.keyHash))?.key, key);
});

t.test('a long data directory path falls back from a unix socket to loopback TCP', async (t) => {
  const root = await mkdtemp(path.join(os.tmpdir(), 'baton-pglite-'));
  t.teardown(() => rm(root, { recursive: true, force: true }));
  const dataDir = path.join(root, 'x'.repeat(120));
  const stores = await openDurableStores({ databaseUrl: null, dataDir, databaseSchema: 'baton' });
  t.teardown(() => stores.close());
  await t.resolves(stores.ping());
});
