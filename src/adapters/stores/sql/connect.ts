/**
 * One SQL code path for both deployments: postgres.js talks either to a real Postgres or to an
 * embedded PGlite served on a local socket by pglite-socket.
 */
import { mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { lockDataDir } from './data-dir-lock.js';
import postgres from 'postgres';
import { Worker } from 'node:worker_threads';
import type { PgliteThreadData, PgliteThreadReply } from './pglite-thread.js';
import { startEngineHere, type EmbeddedEngine, type EngineWhere } from './pglite-engine.js';

export type Sql = postgres.Sql;

export interface SqlConfig {
  readonly databaseUrl: string | null;
  /** PGlite directory when databaseUrl is null; ':memory:' keeps nothing on disk (tests). */
  readonly dataDir: string;
  readonly databaseSchema: string;
  /** Connections to real Postgres (embedded mode always uses 1). */
  readonly poolSize?: number;
  /** Embedded: run PGlite on its own worker thread (src/adapters/stores/sql/pglite-thread.ts). Default false. */
  readonly pgliteThread?: boolean;
}

export interface SqlHandle {
  readonly sql: Sql;
  /** True when backed by PGlite: one session, one process, no LISTEN/NOTIFY. */
  readonly embedded: boolean;
  close(): Promise<void>;
}

export const MEMORY_DATA_DIR = ':memory:';

const DEFAULT_POOL_SIZE = 10;
const CONNECT_TIMEOUT_S = 2;
// Unix socket paths are limited to ~108 bytes; beyond that we fall back to loopback TCP.
const MAX_SOCKET_PATH = 100;

/** Opens a pool; callers own `close()`. */
export async function openSql(config: SqlConfig): Promise<SqlHandle> {
  return config.databaseUrl === null ? openEmbedded(config) : openPostgres(config.databaseUrl, config);
}

function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

async function openPostgres(url: string, config: SqlConfig): Promise<SqlHandle> {
  const sql = postgres(url, {
    max: config.poolSize ?? DEFAULT_POOL_SIZE,
    // A startup parameter, so every pooled connection (including reconnects) gets it.
    connection: { search_path: config.databaseSchema },
    // Seconds. A connection attempt to an unreachable server fails this soon (default 30) so a
    // query does not wait on it for long; request-path calls are bounded separately
    // (BATON_STORE_DEADLINE_MS).
    connect_timeout: CONNECT_TIMEOUT_S,
    onnotice: () => {},
  });
  try {
    await ensureSchema(sql, config.databaseSchema);
  } catch (err) {
    await sql.end({ timeout: 1 });
    throw err;
  }
  return { sql, embedded: false, close: () => sql.end({ timeout: 5 }) };
}

/** Creates the schema; two workers starting together may race, and losing that race is fine. */
async function ensureSchema(sql: Sql, schema: string): Promise<void> {
  try {
    await sql.unsafe(`create schema if not exists ${quoteIdent(schema)}`);
  } catch (err) {
    // 23505 unique_violation / 42P06 duplicate_schema: a concurrent worker created it first.
    const code = (err as { code?: string }).code;
    if (code !== '23505' && code !== '42P06') throw err;
  }
}

async function openEmbedded(config: SqlConfig): Promise<SqlHandle> {
  const inMemory = config.dataDir === MEMORY_DATA_DIR;
  let unlock: () => Promise<void> = async () => undefined;
  if (!inMemory) {
    await mkdir(config.dataDir, { recursive: true, mode: 0o700 });
    unlock = await lockDataDir(config.dataDir);
  }
  const socketPath = inMemory ? null : path.join(config.dataDir, '.s.PGSQL.baton');
  const useUnix = socketPath !== null && socketPath.length <= MAX_SOCKET_PATH;
  // A socket file left by a crashed process would make listen() fail with EADDRINUSE.
  if (useUnix) await rm(socketPath, { force: true });
  let engine: EmbeddedEngine;
  try {
    const where = { dataDir: inMemory ? null : config.dataDir, schema: config.databaseSchema, socketPath: useUnix ? socketPath : null };
    engine = config.pgliteThread === true ? await startEngineThread(where) : await startEngineHere(where);
  } catch (err) {
    await unlock();
    throw err;
  }
  const target = engine.path !== null ? { path: engine.path } : { host: '127.0.0.1', port: engine.port! };
  const sql = postgres({
    ...target,
    database: 'postgres',
    username: 'postgres',
    // All connections would share PGlite's single session: two pooled connections running
    // transactions at once would interleave BEGIN/COMMIT on that session and corrupt each other.
    max: 1,
    // Reconnecting would leave the old connection's prepared statements behind in the shared
    // session; keep the one connection for the life of the process.
    idle_timeout: 0,
    max_lifetime: null,
    onnotice: () => {},
  });

  let closed = false;
  async function close(): Promise<void> {
    if (closed) return;
    closed = true;
    await sql.end({ timeout: 5 });
    await engine.stop();
    if (useUnix) await rm(socketPath, { force: true });
    await unlock();
  }
  return { sql, embedded: true, close };
}

const THREAD_STOP_TIMEOUT_MS = 10_000;

/** On a worker thread of its own (src/adapters/stores/sql/pglite-thread.ts). */
async function startEngineThread(where: EngineWhere): Promise<EmbeddedEngine> {
  // Compiled: the .js beside this file; under tsx or ts-node: the .ts (the loader is inherited).
  const extension = import.meta.url.endsWith('.ts') ? '.ts' : '.js';
  const worker = new Worker(new URL(`./pglite-thread${extension}`, import.meta.url), {
    workerData: { pgliteThread: { dataDir: where.dataDir, schema: where.schema, socketPath: where.socketPath } satisfies PgliteThreadData },
  });
  const next = (): Promise<PgliteThreadReply> =>
    new Promise((resolve, reject) => {
      const onMessage = (message: PgliteThreadReply): void => {
        worker.off('error', onError);
        worker.off('exit', onExit);
        resolve(message);
      };
      const onError = (error: Error): void => {
        worker.off('message', onMessage);
        worker.off('exit', onExit);
        reject(error);
      };
      const onExit = (code: number): void => {
        worker.off('message', onMessage);
        worker.off('error', onError);
        reject(new Error(`the embedded database thread exited (code ${code})`));
      };
      worker.once('message', onMessage);
      worker.once('error', onError);
      worker.once('exit', onExit);
    });
  const first = await next().catch(async (error: unknown) => {
    await worker.terminate();
    throw error;
  });
  if (first.type !== 'ready') {
    await worker.terminate();
    throw new Error(first.type === 'failed' ? `embedded database did not start: ${first.error}` : 'embedded database did not start');
  }
  return {
    path: first.path,
    port: first.port,
    async stop() {
      const stopped = next();
      worker.postMessage({ type: 'stop' });
      // Close cleanly (PGlite flushes its files); past the timeout the thread is terminated.
      await Promise.race([stopped.catch(() => undefined), new Promise((resolve) => setTimeout(resolve, THREAD_STOP_TIMEOUT_MS).unref())]);
      await worker.terminate();
    },
  };
}
