/**
 * The operator CLI end to end: accounts and keys created with `baton` against an embedded data
 * directory authenticate once the server runs on it; the CLI refuses a directory in use.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import t from 'tap';
import { packageRoot } from '../src/support/paths.js';
import { batonArgs } from './helpers/baton-command.js';
import { uninstrumentedEnv } from './helpers/child-env.js';
import { api, startServer } from './helpers/server.js';

const run = promisify(execFile);
const dataDir = mkdtempSync(path.join(os.tmpdir(), 'baton-cli-'));
t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));

function baton(...args: string[]) {
  const env: Record<string, string> = { ...(process.env as Record<string, string>), BATON_DATA_DIR: dataDir };
  delete env.DATABASE_URL;
  delete env.REDIS_URL;
  return run(process.execPath, [...batonArgs(), ...args], { cwd: packageRoot, env: uninstrumentedEnv(env) });
}

t.test('accounts and keys made with the CLI work against the server', async (t) => {
  await baton('migrate');
  const account = JSON.parse((await baton('accounts', 'create', '--name', 'Cli Co', '--tier', 'ENTERPRISE', '--fee-percent', '1.5')).stdout) as Record<string, unknown>;
  t.match(account.id, /^acct_/);
  t.equal(account.feePercent, 1.5);
  const issued = await baton('keys', 'create', '--account', account.id as string, '--name', 'boot', '--permissions', 'orchestrate,api-keys:manage');
  const key = JSON.parse(issued.stdout) as Record<string, unknown>;
  t.match(key.key, /^mk_[0-9a-f]{32}$/);
  t.match(issued.stderr, /shown only once/);

  const server = await startServer(t, { mode: 'embedded', env: { BATON_DATA_DIR: dataDir } });
  const who = await api(server, 'GET', '/v1/auth/test', { key: key.key as string });
  t.equal(who.status, 200);
  t.same(who.body.permissions, ['orchestrate', 'api-keys:manage']);
  t.equal(who.body.accountTier, 'ENTERPRISE');

  const refused = await baton('accounts', 'create', '--name', 'x', '--tier', 'DEVELOPER').then(
    () => null,
    (error: { stderr: string; code: number }) => error,
  );
  t.ok(refused, 'the CLI fails while the server holds the data directory');
  t.match(refused?.stderr, /in use by process/);
  await server.stop();
});

t.test('the CLI explains invalid input instead of failing obscurely', async (t) => {
  const result = await baton('keys', 'create', '--account', 'acct_missing', '--name', 'x').then(
    () => null,
    (error: { stderr: string }) => error,
  );
  t.match(result?.stderr, /Account 'acct_missing' not found/);
  const badTier = await baton('accounts', 'create', '--name', 'x', '--tier', 'GOLD').then(
    () => null,
    (error: { stderr: string }) => error,
  );
  t.match(badTier?.stderr, /Allowed choices are DEVELOPER, BUSINESS, ENTERPRISE/);
});
