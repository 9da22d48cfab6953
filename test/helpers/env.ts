/**
 * Test environment: which real servers are available, and unique names so tests can run in
 * parallel against them (each test its own Postgres schema and Redis key prefix).
 */
import { randomBytes } from 'node:crypto';

/** Real Postgres for integration tests (CI sets it); null means embedded PGlite only. */
export const realDatabaseUrl: string | null = process.env.DATABASE_URL || null;
/** Real Redis for integration tests (CI sets it); null means the in-process adapter only. */
export const realRedisUrl: string | null = process.env.REDIS_URL || null;

export function uniqueSchema(label = 't'): string {
  return `${label}_${randomBytes(6).toString('hex')}`;
}

export function uniqueRedisPrefix(label = 't'): string {
  return `baton-test:${label}:${randomBytes(6).toString('hex')}:`;
}
