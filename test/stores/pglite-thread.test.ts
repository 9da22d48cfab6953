/**
 * The embedded database on its own thread (BATON_EMBEDDED_DB_THREAD, on by default): the same SQL
 * path (postgres.js over the local socket), data kept across a close and reopen, and the worker's
 * event loop free while a statement runs.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { openSql } from '../../src/adapters/stores/sql/connect.js';

/** Timer ticks the event loop delivered while `work` ran. */
async function ticksDuring(work: () => Promise<unknown>): Promise<number> {
  let ticks = 0;
  const timer = setInterval(() => ticks++, 20);
  try {
    await work();
  } finally {
    clearInterval(timer);
  }
  return ticks;
}

t.test('on its own thread, the embedded database keeps its data across a reopen', async (t) => {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'baton-pglite-thread-'));
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  const first = await openSql({ databaseUrl: null, dataDir, databaseSchema: 'baton', pgliteThread: true });
  t.equal(first.embedded, true);
  await first.sql`create table notes (id int primary key, body text)`;
  await first.sql`insert into notes values (1, 'kept')`;
  await first.close();
  const second = await openSql({ databaseUrl: null, dataDir, databaseSchema: 'baton', pgliteThread: true });
  t.teardown(() => second.close());
  const rows = await second.sql<Array<{ body: string }>>`select body from notes where id = 1`;
  t.equal(rows[0]?.body, 'kept');
});

t.test('a long statement on the thread leaves the event loop running; on the event loop it blocks it', async (t) => {
  const threaded = await openSql({ databaseUrl: null, dataDir: ':memory:', databaseSchema: 'baton', pgliteThread: true });
  t.teardown(() => threaded.close());
  const inline = await openSql({ databaseUrl: null, dataDir: ':memory:', databaseSchema: 'baton' });
  t.teardown(() => inline.close());
  // A statement that keeps the database busy for about half a second.
  const busy = (sql: typeof threaded.sql) => sql`select count(*) from generate_series(1, 3000000)`;
  const onThread = await ticksDuring(() => busy(threaded.sql));
  const onLoop = await ticksDuring(() => busy(inline.sql));
  t.ok(onThread > onLoop, `timer ticks while the statement ran: ${onThread} on the thread, ${onLoop} on the event loop`);
});
