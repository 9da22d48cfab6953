/**
 * Numbered migrations (`NNN_name.sql`) applied in order, each in its own transaction and
 * recorded in `schema_migrations`. Safe when several workers start at once: every step takes a
 * transaction-scoped advisory lock, so the second worker waits and then finds nothing to do.
 */
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { asset } from '../../../support/paths.js';
import type { Sql } from './connect.js';

export interface Migration {
  readonly version: number;
  readonly name: string;
  readonly file: string;
}

const FILE_PATTERN = /^(\d{3})_([a-z0-9_]+)\.sql$/;

export const migrationsDir: string = asset('src/adapters/stores/sql/migrations');

function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/** The migration files on disk, in version order; fails on duplicate versions. */
export async function listMigrations(dir: string = migrationsDir): Promise<Migration[]> {
  const found: Migration[] = [];
  for (const entry of await readdir(dir)) {
    const match = FILE_PATTERN.exec(entry);
    if (match === null) continue;
    found.push({ version: Number(match[1]), name: match[2] ?? '', file: path.join(dir, entry) });
  }
  found.sort((a, b) => a.version - b.version);
  for (let i = 1; i < found.length; i++) {
    if (found[i]?.version === found[i - 1]?.version) {
      throw new Error(`two migrations share version ${found[i]?.version} in ${dir}`);
    }
  }
  return found;
}

/** Applies pending migrations to `schema`; returns the versions it applied (empty if none). */
export async function migrate(sql: Sql, schema: string, dir: string = migrationsDir): Promise<number[]> {
  const migrations = await listMigrations(dir);
  const ident = quoteIdent(schema);
  // Lock per schema, so test runs in separate schemas do not queue behind each other.
  const lockName = `baton.migrate.${schema}`;
  const applied: number[] = [];

  await sql.begin(async (tx) => {
    await tx`select pg_advisory_xact_lock(hashtext(${lockName}))`;
    await tx.unsafe(`create schema if not exists ${ident}`);
    await tx.unsafe(
      `create table if not exists ${ident}.schema_migrations (
         version integer primary key,
         name text not null,
         applied_at timestamptz not null default now()
       )`,
    );
  });

  for (const migration of migrations) {
    const body = await readFile(migration.file, 'utf8');
    await sql.begin(async (tx) => {
      await tx`select pg_advisory_xact_lock(hashtext(${lockName}))`;
      const done = await tx`select 1 from ${tx(schema)}.schema_migrations where version = ${migration.version}`;
      if (done.length > 0) return;
      // `set local` ends with the transaction, leaving the connection's own search_path alone.
      await tx.unsafe(`set local search_path to ${ident}`);
      await tx.unsafe(body);
      await tx`insert into ${tx(schema)}.schema_migrations (version, name) values (${migration.version}, ${migration.name})`;
      applied.push(migration.version);
    });
  }
  return applied;
}
