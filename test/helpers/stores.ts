/**
 * Store fixtures for tests: every store test runs against each available kind (embedded always,
 * real servers when DATABASE_URL / REDIS_URL are set), each in its own schema or key prefix.
 */
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import postgres from 'postgres';
import type { StoreLogger } from '../../src/adapters/stores/log.js';
import type { Coordination } from '../../src/ports/coordination.js';
import type { DurableStores } from '../../src/ports/durable.js';
import type { NewAccount } from '../../src/domain/accounts.js';
import type { NewApiKey } from '../../src/domain/api-keys.js';
import { createMemoryBus, ioredisCoordination, memoryCoordination } from '../../src/adapters/stores/redis/index.js';
import { MEMORY_DATA_DIR, openDurableStores } from '../../src/adapters/stores/sql/index.js';
import { realDatabaseUrl, realRedisUrl, uniqueRedisPrefix, uniqueSchema } from './env.js';

export type DurableKind = 'pglite' | 'postgres';
export type CoordinationKind = 'memory' | 'redis';

/** Anything with tap's teardown; keeps this helper independent of tap's types. */
export interface Teardown {
  teardown(fn: () => unknown): void;
}

export function durableKinds(): DurableKind[] {
  return realDatabaseUrl === null ? ['pglite'] : ['pglite', 'postgres'];
}

export function coordinationKinds(): CoordinationKind[] {
  return realRedisUrl === null ? ['memory'] : ['memory', 'redis'];
}

function requireUrl(url: string | null, variable: string): string {
  if (url === null) throw new Error(`${variable} is not set; check durableKinds()/coordinationKinds()`);
  return url;
}

/** Drops a test schema with a short-lived connection of its own (the stores are closed by then). */
export async function dropSchema(schema: string): Promise<void> {
  const sql = postgres(requireUrl(realDatabaseUrl, 'DATABASE_URL'), { max: 1, onnotice: () => {} });
  try {
    await sql.unsafe(`drop schema if exists "${schema}" cascade`);
  } finally {
    await sql.end({ timeout: 5 });
  }
}

/** Migrated durable stores: in-memory PGlite, or a fresh schema in real Postgres dropped afterwards. */
export async function openTestDurable(t: Teardown, kind: DurableKind): Promise<DurableStores> {
  if (kind === 'pglite') {
    const stores = await openDurableStores({ databaseUrl: null, dataDir: MEMORY_DATA_DIR, databaseSchema: 'baton' });
    t.teardown(() => stores.close());
    return stores;
  }
  const schema = uniqueSchema('stores');
  const stores = await openDurableStores({
    databaseUrl: requireUrl(realDatabaseUrl, 'DATABASE_URL'),
    dataDir: MEMORY_DATA_DIR,
    databaseSchema: schema,
    poolSize: 4,
  });
  t.teardown(async () => {
    await stores.close();
    await dropSchema(schema);
  });
  return stores;
}

/**
 * `count` coordination adapters that see each other like workers: one shared in-process bus, or
 * separate Redis connections under one unique prefix (whose keys are deleted afterwards).
 */
export async function openTestWorkers(
  t: Teardown,
  kind: CoordinationKind,
  count: number,
  log: StoreLogger = recordingLogger(),
): Promise<Coordination[]> {
  const workers: Coordination[] = [];
  if (kind === 'memory') {
    const bus = createMemoryBus();
    for (let i = 0; i < count; i++) workers.push(memoryCoordination({ bus, log }));
  } else {
    const url = requireUrl(realRedisUrl, 'REDIS_URL');
    const prefix = uniqueRedisPrefix('stores');
    for (let i = 0; i < count; i++) workers.push(ioredisCoordination({ url, prefix, log }));
    t.teardown(() => deleteKeys(url, prefix));
  }
  t.teardown(() => Promise.all(workers.map((w) => w.close())));
  return workers;
}

export async function openTestCoordination(
  t: Teardown,
  kind: CoordinationKind,
  log: StoreLogger = recordingLogger(),
): Promise<Coordination> {
  const [worker] = await openTestWorkers(t, kind, 1, log);
  if (worker === undefined) throw new Error('no coordination adapter opened');
  return worker;
}

async function deleteKeys(url: string, prefix: string): Promise<void> {
  const redis = new Redis(url);
  try {
    let cursor = '0';
    do {
      const [next, found] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 500);
      cursor = next;
      if (found.length > 0) await redis.del(...found);
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
}

export interface RecordedLog {
  readonly level: 'warn' | 'error';
  readonly message: string;
  readonly context: object;
}

/** A logger that keeps lines in memory (`lines`), so expected failures stay off the test output. */
export function recordingLogger(): StoreLogger & { readonly lines: RecordedLog[] } {
  const lines: RecordedLog[] = [];
  return {
    lines,
    warn: (context, message) => void lines.push({ level: 'warn', message, context }),
    error: (context, message) => void lines.push({ level: 'error', message, context }),
  };
}

// Builders with unique ids, so tests sharing a database never collide.
const unique = (): string => randomBytes(6).toString('hex');

export function newAccount(overrides: Partial<NewAccount> = {}): NewAccount {
  return { id: `acct_${unique()}`, name: 'Acme', tier: 'DEVELOPER', limits: null, feeBasisPoints: null, ...overrides };
}

export function newKey(accountId: string, overrides: Partial<NewApiKey> = {}): NewApiKey {
  return {
    id: `key_${unique()}`,
    accountId,
    name: 'ci',
    keyHash: randomBytes(32).toString('hex'),
    permissions: ['agents:read', 'orchestrate:execute'],
    expiresAt: null,
    ipWhitelist: null,
    ...overrides,
  };
}
