import t from 'tap';
import { loadConfig } from '../src/support/config.js';

t.test('embedded defaults need no environment', async (t) => {
  const config = loadConfig({});
  t.equal(config.port, 8080);
  t.equal(config.host, '0.0.0.0');
  t.equal(config.workers, 1, 'embedded mode runs one worker');
  t.equal(config.publicUrl, 'http://localhost:8080');
  t.equal(config.databaseUrl, null);
  t.equal(config.maxBodyBytes, 1_048_576);
  t.equal(config.allowPrivateUrls, false);
  t.equal(config.storeDeadlineMs, 2_000);
});

t.test('with Postgres and Redis, workers default to the CPU count and may be set', async (t) => {
  const env = { DATABASE_URL: 'postgres://x/y', REDIS_URL: 'redis://z', BATON_WORKERS: '3' };
  t.equal(loadConfig(env).workers, 3);
});

t.test('invalid values fail at start-up naming the variable', async (t) => {
  t.throws(() => loadConfig({ BATON_PORT: 'eighty' }), /BATON_PORT/);
  t.throws(() => loadConfig({ BATON_MAX_BODY_BYTES: '-1' }), /BATON_MAX_BODY_BYTES/);
  t.throws(() => loadConfig({ BATON_ALLOW_PRIVATE_URLS: 'maybe' }), /BATON_ALLOW_PRIVATE_URLS/);
  t.throws(() => loadConfig({ BATON_ADMIN_TOKEN: 'short' }), /at least 16/);
  t.throws(() => loadConfig({ BATON_DB_SCHEMA: 'Robert; drop table' }), /BATON_DB_SCHEMA/);
  t.throws(() => loadConfig({ BATON_STORE_DEADLINE_MS: '10' }), /BATON_STORE_DEADLINE_MS/);
  t.equal(loadConfig({ BATON_STORE_DEADLINE_MS: '1500' }).storeDeadlineMs, 1_500);
});

t.test('explicit overrides win over the environment', async (t) => {
  t.equal(loadConfig({ BATON_PORT: '9000' }, { port: 9100 }).port, 9100);
  t.equal(loadConfig({ BATON_PUBLIC_URL: 'https://api.example.com/' }).publicUrl, 'https://api.example.com');
  t.same(loadConfig({ BATON_TRUSTED_PROXIES: '10.0.0.0/8, 192.168.0.0/16' }).trustedProxies, ['10.0.0.0/8', '192.168.0.0/16']);
});

t.test('the semantic reranker is off unless switched on, with a bounded time budget', async (t) => {
  t.equal(loadConfig({}).selectionSemantic, false);
  t.equal(loadConfig({}).selectionSemanticBudgetMs, 150);
  t.equal(loadConfig({ BATON_SELECTION_SEMANTIC: 'on' }).selectionSemantic, true);
  t.equal(loadConfig({ BATON_SELECTION_SEMANTIC: 'true' }).selectionSemantic, true);
  t.equal(loadConfig({ BATON_SELECTION_SEMANTIC: 'off' }).selectionSemantic, false);
  t.equal(loadConfig({ BATON_SELECTION_SEMANTIC_BUDGET_MS: '40' }).selectionSemanticBudgetMs, 40);
  t.throws(() => loadConfig({ BATON_SELECTION_SEMANTIC: 'sometimes' }), /BATON_SELECTION_SEMANTIC/);
  t.throws(() => loadConfig({ BATON_SELECTION_SEMANTIC_BUDGET_MS: '0' }), /BATON_SELECTION_SEMANTIC_BUDGET_MS/);
});
