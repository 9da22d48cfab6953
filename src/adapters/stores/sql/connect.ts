/**
 * One SQL code path for both deployments: postgres.js talks either to a real Postgres or to an
 * embedded PGlite served on a local socket by pglite-socket.
 */
import { mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';
import { lockDataDir } from './data-dir-lock.js';
import postgres from 'postgres';

export type Sql = postgres.Sql;

export interface SqlConfig {
  readonly databaseUrl: string | null;
  /** PGlite directory when databaseUrl is null; ':memory:' keeps nothing on disk (tests). */
  readonly dataDir: string;
  readonly databaseSchema: string;
  /** Connections to real Postgres (embedded mode always uses 1). */
  readonly poolSize?: number;
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
  let db: PGlite;
  try {
    db = inMemory ? await PGlite.create() : await PGlite.create({ dataDir: config.dataDir });
  } catch (err) {
    await unlock();
    throw err;
  }
  // Every socket connection shares this one session, so setting search_path here holds for all.
  const schema = quoteIdent(config.databaseSchema);
  await db.exec(`create schema if not exists ${schema}; set search_path to ${schema}`);

  const socketPath = inMemory ? null : path.join(config.dataDir, '.s.PGSQL.baton');
  const useUnix = socketPath !== null && socketPath.length <= MAX_SOCKET_PATH;
  // A socket file left by a crashed process would make listen() fail with EADDRINUSE.
  if (useUnix) await rm(socketPath, { force: true });
  const server = new PGLiteSocketServer({
    db,
    ...(useUnix ? { path: socketPath } : { host: '127.0.0.1', port: 0 }),
    // Must be >= the pool size or postgres.js connections are refused.
    maxConnections: 1,
  });
  try {
    await server.start();
  } catch (err) {
    await db.close();
    await unlock();
    throw err;
  }

  const target = useUnix
    ? { path: socketPath }
    : { host: '127.0.0.1', port: Number(server.getServerConn().split(':').pop()) };
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
    await server.stop();
    await db.close();
    if (useUnix) await rm(socketPath, { force: true });
    await unlock();
  }
  return { sql, embedded: true, close };
}
