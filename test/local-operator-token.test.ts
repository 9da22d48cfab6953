/**
 * First run: the local operator token is created only for a fresh embedded data directory
 * without BATON_ADMIN_TOKEN, kept owner-only, read again on later starts, and never in
 * Postgres mode. The spawned-server test at the end checks what a user sees.
 */
import { spawn } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { localOperatorToken, TOKEN_FILE_NAME } from '../src/main/local-operator-token.js';
import { packageRoot } from '../src/support/paths.js';
import { batonArgs } from './helpers/baton-command.js';
import { uninstrumentedEnv } from './helpers/child-env.js';
import { api, freePort } from './helpers/server.js';

function tempDir(t: { teardown(fn: () => unknown): void }): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'baton-first-run-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

t.test('a fresh data directory gets a token file readable only by its owner', async (t) => {
  const dataDir = path.join(tempDir(t), 'data');
  const created = localOperatorToken({ databaseUrl: null, adminToken: null, dataDir });
  t.ok(created?.created);
  t.match(created?.token, /^bop_[A-Za-z0-9_-]{43}$/);
  const file = path.join(dataDir, TOKEN_FILE_NAME);
  t.equal(statSync(file).mode & 0o777, 0o600);
  t.equal(readFileSync(file, 'utf8').trim(), created?.token);
  const again = localOperatorToken({ databaseUrl: null, adminToken: null, dataDir });
  t.same(again, { token: created?.token, file, created: false }, 'the next start reads the same token and does not print it');
});

t.test('a token file whose permissions were loosened is tightened again', async (t) => {
  const dataDir = tempDir(t);
  const created = localOperatorToken({ databaseUrl: null, adminToken: null, dataDir })!;
  chmodSync(created.file, 0o644);
  localOperatorToken({ databaseUrl: null, adminToken: null, dataDir });
  t.equal(statSync(created.file).mode & 0o777, 0o600);
});

t.test('no token with DATABASE_URL, with BATON_ADMIN_TOKEN, or for a directory that already holds data', async (t) => {
  const dataDir = tempDir(t);
  t.equal(localOperatorToken({ databaseUrl: 'postgres://db/x', adminToken: null, dataDir }), null);
  t.equal(localOperatorToken({ databaseUrl: null, adminToken: 'set-by-the-operator-0123', dataDir }), null);
  mkdirSync(path.join(dataDir, 'base'));
  t.equal(localOperatorToken({ databaseUrl: null, adminToken: null, dataDir }), null);
});

t.test('a too-short token file is refused with a message naming the file', async (t) => {
  const dataDir = tempDir(t);
  writeFileSync(path.join(dataDir, TOKEN_FILE_NAME), 'short\n', { mode: 0o600 });
  t.throws(() => localOperatorToken({ databaseUrl: null, adminToken: null, dataDir }), /operator-token: the operator token must be at least 16 characters/);
});

t.test('npm start on an empty data directory prints the token once with the console URL, and the token works', async (t) => {
  const dataDir = tempDir(t);
  const port = await freePort();
  const env: Record<string, string> = { ...(process.env as Record<string, string>), BATON_PORT: String(port), BATON_HOST: '127.0.0.1', BATON_DATA_DIR: dataDir };
  for (const name of ['DATABASE_URL', 'REDIS_URL', 'BATON_ADMIN_TOKEN', 'BATON_PUBLIC_URL']) delete env[name];

  const start = async (): Promise<{ output: () => string; stop: () => Promise<void> }> => {
    const child = spawn(process.execPath, [...batonArgs(), 'serve'], { cwd: packageRoot, env: uninstrumentedEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (c: Buffer) => (output += c.toString()));
    child.stderr.on('data', (c: Buffer) => (output += c.toString()));
    const stop = async (): Promise<void> => {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    };
    t.teardown(stop);
    const deadline = Date.now() + (Number(process.env.BATON_TEST_START_TIMEOUT_MS ?? '') || 120_000);
    // The notice follows the listening line; wait for it too on the first start.
    while (!/baton listening/.test(output) || (/First run/.test(output) && !/Console: /.test(output))) {
      if (child.exitCode !== null || Date.now() > deadline) throw new Error(`server did not start:\n${output}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    await new Promise((r) => setTimeout(r, 100));
    return { output: () => output, stop };
  };

  const first = await start();
  const token = /BATON_ADMIN_TOKEN=(bop_[A-Za-z0-9_-]+)/.exec(first.output())?.[1];
  t.ok(token, 'the token is printed');
  t.match(first.output(), `Console: http://localhost:${port}/console`);
  t.equal(readFileSync(path.join(dataDir, TOKEN_FILE_NAME), 'utf8').trim(), token);
  const server = { url: `http://127.0.0.1:${port}` };
  const made = await api(server, 'POST', '/v1/accounts', { key: token!, body: { name: 'First', tier: 'DEVELOPER' } });
  t.equal(made.status, 201, 'the printed token is the operator token');
  await first.stop();

  const second = await start();
  t.notMatch(second.output(), token!, 'the token is printed only once');
  t.match(second.output(), /operator token read from the data directory/);
  const again = await api(server, 'POST', '/v1/accounts', { key: token!, body: { name: 'Second', tier: 'DEVELOPER' } });
  t.equal(again.status, 201, 'the same token works after a restart');
  await second.stop();
});
