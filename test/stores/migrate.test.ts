import { mkdtemp, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { listMigrations, migrate, openSql } from '../../src/adapters/stores/sql/index.js';
import { realDatabaseUrl, uniqueSchema } from '../helpers/env.js';
import { dropSchema } from '../helpers/stores.js';

t.test('migration files are numbered without gaps or duplicates', async (t) => {
  const migrations = await listMigrations();
  t.ok(migrations.length >= 1);
  t.same(
    migrations.map((m) => m.version),
    migrations.map((_, i) => i + 1),
  );
});

t.test('migrating twice applies nothing the second time (pglite)', async (t) => {
  const { sql, close } = await openSql({ databaseUrl: null, dataDir: ':memory:', databaseSchema: 'baton' });
  t.teardown(close);
  const first = await migrate(sql, 'baton');
  t.same(first, (await listMigrations()).map((m) => m.version));
  t.same(await migrate(sql, 'baton'), []);
  const recorded = await sql<{ version: number }[]>`select version from baton.schema_migrations order by version`;
  t.same(
    recorded.map((r) => r.version),
    first,
  );
});

t.test('a failing migration leaves nothing behind and is retried next time (pglite)', async (t) => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'baton-migrations-'));
  await writeFile(path.join(dir, '001_ok.sql'), 'create table one (id int);');
  await writeFile(path.join(dir, '002_broken.sql'), 'create table two (id int); select missing_function();');
  const { sql, close } = await openSql({ databaseUrl: null, dataDir: ':memory:', databaseSchema: 'm' });
  t.teardown(close);
  await t.rejects(migrate(sql, 'm', dir));
  const tables = await sql<{ name: string }[]>`
    select table_name as name from information_schema.tables where table_schema = 'm' order by 1`;
  t.same(
    tables.map((r) => r.name),
    ['one', 'schema_migrations'],
  );
  await writeFile(path.join(dir, '002_broken.sql'), 'create table two (id int);');
  t.same(await migrate(sql, 'm', dir), [2]);
});

t.test('two concurrent migrations on real Postgres both succeed', { skip: realDatabaseUrl === null }, async (t) => {
  const schema = uniqueSchema('migrate');
  const config = { databaseUrl: realDatabaseUrl, dataDir: ':memory:', databaseSchema: schema, poolSize: 2 };
  const a = await openSql(config);
  const b = await openSql(config);
  t.teardown(async () => {
    await a.close();
    await b.close();
    await dropSchema(schema);
  });
  const [fromA, fromB] = await Promise.all([migrate(a.sql, schema), migrate(b.sql, schema)]);
  const all = (await listMigrations()).map((m) => m.version);
  t.same([...fromA, ...fromB].sort((x, y) => x - y), all, 'each migration applied exactly once');
  const [row] = await a.sql<{ n: number }[]>`select count(*)::int as n from schema_migrations`;
  t.equal(row?.n, all.length);
});
