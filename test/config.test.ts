import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { loadConfig, SETTINGS } from '../src/support/config.js';
import { asset } from '../src/support/paths.js';
import { README_FILE, readmeWithConfigTable } from '../scripts/config-reference.js';

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

t.test('leases, the recovery scan and the worker index are read here, with their ranges', async (t) => {
  const config = loadConfig({});
  t.equal(config.leaseMs, 30_000);
  t.equal(config.recoveryScanMs, 15_000, 'half the lease by default');
  t.equal(config.workerIndex, 0);
  t.equal(loadConfig({ BATON_LEASE_MS: '4000' }).recoveryScanMs, 2_000, 'half of a set lease');
  t.equal(loadConfig({ BATON_LEASE_MS: '4000', BATON_RECOVERY_SCAN_MS: '500' }).recoveryScanMs, 500);
  t.equal(loadConfig({ BATON_WORKER_INDEX: '3' }).workerIndex, 3);
  t.throws(() => loadConfig({ BATON_LEASE_MS: '10' }), /BATON_LEASE_MS: expected an integer from 300/);
  t.throws(() => loadConfig({ BATON_RECOVERY_SCAN_MS: 'soon' }), /BATON_RECOVERY_SCAN_MS/);
  t.throws(() => loadConfig({ BATON_WORKER_INDEX: '-1' }), /BATON_WORKER_INDEX/);
});

t.test('whether tracing is on comes from config, decided by the standard OTEL_* variables', async (t) => {
  t.equal(loadConfig({}).tracing, false);
  t.equal(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }).tracing, true);
  t.equal(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_SDK_DISABLED: 'true' }).tracing, false);
});

t.test('every BATON_* variable src/ names is a row of the settings table, and no file but config reads the environment', async (t) => {
  const root = asset();
  const names = new Set(Object.values(SETTINGS).map((s) => s.name));
  const strays: string[] = [];
  const walk = (dir: string): string[] =>
    readdirSync(dir).flatMap((name) => {
      const full = path.join(dir, name);
      return statSync(full).isDirectory() ? walk(full) : full.endsWith('.ts') ? [full] : [];
    });
  for (const full of walk(path.join(root, 'src'))) {
    const file = path.relative(root, full).split(path.sep).join('/');
    const text = readFileSync(full, 'utf8');
    // A variable is named in quotes or read as a property (env.BATON_X); BATON_KEY is the client's usage example.
    for (const match of text.matchAll(/(?:['"`]|\.)(BATON_[A-Z0-9_]+)\b/g)) {
      if (!names.has(match[1]!) && match[1] !== 'BATON_KEY') strays.push(`${file}: ${match[1]}`);
    }
    const code = text.replace(/^\s*(\*|\/\/).*$/gm, '');
    if (file !== 'src/support/config.ts' && file !== 'src/cli/main.ts' && /process\.env\b/.test(code)) strays.push(`${file}: reads process.env`);
  }
  t.same(strays, []);
});

t.test("the README's configuration table is what `npm run docs:config` writes now", async (t) => {
  const readme = readFileSync(README_FILE, 'utf8');
  t.ok(readme === readmeWithConfigTable(readme), 'README.md configuration table is out of date: run `npm run docs:config`');
  for (const setting of Object.values(SETTINGS)) t.match(readme, `| \`${setting.name}\` |`, `${setting.name} documented`);
});
