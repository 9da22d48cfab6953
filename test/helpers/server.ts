/**
 * Spawns the real service (`baton serve`) on a free 127.0.0.1 port for end-to-end tests, in
 * embedded mode (PGlite in a temp dir, in-process coordination) or against the real Postgres and
 * Redis (own schema and key prefix) with several workers. Stopped with SIGTERM at teardown.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { packageRoot } from '../../src/support/paths.js';
import { realDatabaseUrl, realRedisUrl, uniqueRedisPrefix, uniqueSchema } from './env.js';
import { batonArgs } from './baton-command.js';
import { uninstrumentedEnv } from './child-env.js';
import { seedPgliteDataDir } from './pglite-template.js';

export const ADMIN_TOKEN = 'test-operator-token-0123456789';

export interface ServerOptions {
  readonly mode: 'embedded' | 'real';
  readonly workers?: number;
  readonly env?: Readonly<Record<string, string>>;
}

export interface TestServer {
  readonly url: string;
  readonly port: number;
  readonly process: ChildProcess;
  /** Everything the server printed so far. */
  output(): string;
  stop(): Promise<void>;
}

interface Teardown {
  teardown(fn: () => unknown): void;
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

export function realServersAvailable(): boolean {
  return realDatabaseUrl !== null && realRedisUrl !== null;
}

export async function startServer(t: Teardown, options: ServerOptions): Promise<TestServer> {
  const port = await freePort();
  const env: Record<string, string> = {
    ...(process.env as Record<string, string>),
    BATON_PORT: String(port),
    BATON_HOST: '127.0.0.1',
    BATON_ADMIN_TOKEN: ADMIN_TOKEN,
    BATON_ALLOW_PRIVATE_URLS: 'true',
    BATON_LOG_LEVEL: 'info',
    BATON_PUBLIC_URL: `http://127.0.0.1:${port}`,
    // A loaded CI machine delays every event loop; that must not turn test submissions into 503s.
    // Tests of admission control set their own bounds through `env`.
    BATON_MAX_EVENT_LOOP_DELAY_MS: '60000',
  };
  delete env.DATABASE_URL;
  delete env.REDIS_URL;
  let dataDir: string | null = null;
  if (options.mode === 'embedded') {
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'baton-e2e-'));
    // A test that brings its own directory (to restart on it) starts it empty.
    if (options.env?.BATON_DATA_DIR === undefined) await seedPgliteDataDir(dataDir);
    env.BATON_DATA_DIR = dataDir;
  } else {
    if (realDatabaseUrl === null || realRedisUrl === null) throw new Error('real mode needs DATABASE_URL and REDIS_URL');
    env.DATABASE_URL = realDatabaseUrl;
    env.REDIS_URL = realRedisUrl;
    env.BATON_DB_SCHEMA = uniqueSchema('e2e');
    env.BATON_REDIS_PREFIX = uniqueRedisPrefix('e2e');
    env.BATON_WORKERS = String(options.workers ?? 2);
  }
  Object.assign(env, options.env ?? {});
  const child = spawn(process.execPath, [...batonArgs(), 'serve'], {
    cwd: packageRoot,
    env: uninstrumentedEnv(env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const url = `http://127.0.0.1:${port}`;
  const server: TestServer = {
    url,
    port,
    process: child,
    output: () => output,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
        await exited;
        clearTimeout(timer);
      }
      if (dataDir !== null) rmSync(dataDir, { recursive: true, force: true });
    },
  };
  t.teardown(() => server.stop());
  try {
    await waitUntilListening(server);
  } catch (error) {
    // The test process is about to fail before any teardown runs: a server left starting would
    // outlive it (and load the machine for the next run).
    // SIGTERM first: the primary stops the workers it forked (a SIGKILL would orphan them).
    await server.stop();
    throw error;
  }
  return server;
}

/** A loaded machine can take longer to compile and start the server; BATON_TEST_START_TIMEOUT_MS raises the wait. */
const START_TIMEOUT_MS = Number(process.env.BATON_TEST_START_TIMEOUT_MS) || 60_000;

async function waitUntilListening(server: TestServer): Promise<void> {
  const deadline = Date.now() + START_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (server.process.exitCode !== null) throw new Error(`server exited early:\n${server.output()}`);
    if (server.output().includes('baton listening')) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`server did not start within ${START_TIMEOUT_MS / 1000} s:\n${server.output()}`);
}

export interface ApiResponse<T = Record<string, unknown>> {
  readonly status: number;
  readonly headers: Headers;
  readonly body: T;
  readonly text: string;
}

/** JSON request helper. `key` goes in `Authorization: Bearer`. */
export async function api<T = Record<string, unknown>>(
  server: { url: string },
  method: string,
  urlPath: string,
  options: { key?: string; body?: unknown; headers?: Record<string, string> } = {},
): Promise<ApiResponse<T>> {
  const headers: Record<string, string> = { ...(options.headers ?? {}) };
  if (options.key !== undefined) headers.authorization = `Bearer ${options.key}`;
  let body: string | undefined;
  if (options.body !== undefined) {
    body = typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
    headers['content-type'] ??= 'application/json';
  }
  const response = await fetch(server.url + urlPath, { method, headers, body });
  const text = await response.text();
  let parsed: unknown = undefined;
  try {
    parsed = text === '' ? undefined : JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  return { status: response.status, headers: response.headers, body: parsed as T, text };
}

/** Creates an account (operator token) and a key on it; returns both. */
export async function createAccountWithKey(
  server: { url: string },
  tier: 'DEVELOPER' | 'BUSINESS' | 'ENTERPRISE' = 'DEVELOPER',
  permissions: string[] = ['*'],
  extra: Record<string, unknown> = {},
): Promise<{ accountId: string; key: string; keyId: string }> {
  const account = await api(server, 'POST', '/v1/accounts', { key: ADMIN_TOKEN, body: { name: `acct ${tier}`, tier } });
  if (account.status !== 201) throw new Error(`account creation failed: ${account.status} ${account.text}`);
  const accountId = account.body.id as string;
  const key = await api(server, 'POST', '/v1/api-keys', {
    key: ADMIN_TOKEN,
    body: { name: 'test key', permissions, accountId, ...extra },
  });
  if (key.status !== 201) throw new Error(`key creation failed: ${key.status} ${key.text}`);
  return { accountId, key: key.body.key as string, keyId: key.body.id as string };
}
