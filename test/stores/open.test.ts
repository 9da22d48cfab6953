import t from 'tap';
import { loadConfig } from '../../src/support/config.js';
import { openStores } from '../../src/adapters/stores/open.js';
import { MEMORY_DATA_DIR } from '../../src/adapters/stores/sql/index.js';

t.test('embedded configuration opens PGlite and in-process coordination', async (t) => {
  const config = loadConfig({}, { databaseUrl: null, redisUrl: null, dataDir: MEMORY_DATA_DIR });
  const stores = await openStores(config);
  t.teardown(() => stores.close());
  await t.resolves(stores.durable.ping());
  await t.resolves(stores.coordination.ping());
  t.equal(await stores.durable.accounts.get('acct_none'), null, 'migrations ran on open');
});
