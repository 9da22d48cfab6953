/**
 * ExecutionStore on SQL. New executions are group-committed (one multi-row insert per batch), so
 * "202 only once durably recorded" stays cheap under load. Status changes are conditional
 * updates, so a cancel and a completion racing each other cannot both win.
 */
import type { ExecutionPatch, ExecutionRecord, ExecutionStatusName, ExecutionStore } from '../ports.js';
import type { Sql } from './connect.js';
import { GroupCommit } from './group-commit.js';

interface ExecutionRow {
  readonly record: ExecutionRecord;
}

export function sqlExecutionStore(sql: Sql): ExecutionStore {
  const inserts = new GroupCommit<ExecutionRecord>(async (records) => {
    const ids = records.map((r) => r.id);
    const accounts = records.map((r) => r.accountId);
    const statuses = records.map((r) => r.status);
    const docs = records.map((r) => JSON.stringify(r));
    const created = records.map((r) => r.createdAt);
    await sql`
      insert into executions (id, account_id, status, record, created_at, updated_at)
      select id, account_id, status, record, created_at, created_at
      from unnest(${ids}::text[], ${accounts}::text[], ${statuses}::text[], ${docs}::text[]::jsonb[], ${created}::timestamptz[])
        as u(id, account_id, status, record, created_at)`;
  });

  const progress = new GroupCommit<{ id: string; doc: string }>(async (updates) => {
    // Later updates of the same execution supersede earlier ones in the batch.
    const latest = new Map(updates.map((u) => [u.id, u.doc]));
    await sql`
      update executions e set record = e.record || jsonb_build_object('progress', u.progress), updated_at = now()
      from unnest(${[...latest.keys()]}::text[], ${[...latest.values()]}::text[]::jsonb[]) as u(id, progress)
      where e.id = u.id and e.status = 'RUNNING'`;
  });

  return {
    insert: (record) => inserts.add(record),

    async get(accountId, id) {
      const rows = await sql<ExecutionRow[]>`select record from executions where id = ${id} and account_id = ${accountId}`;
      return rows[0]?.record ?? null;
    },

    async getById(id) {
      const rows = await sql<ExecutionRow[]>`select record from executions where id = ${id}`;
      return rows[0]?.record ?? null;
    },

    async transition(id, from, status, patch: ExecutionPatch) {
      const doc = JSON.stringify({ ...patch, status });
      const rows = await sql<ExecutionRow[]>`
        update executions set status = ${status}, record = record || ${doc}::text::jsonb, updated_at = now()
        where id = ${id} and status = any(${from as ExecutionStatusName[]}::text[])
        returning record`;
      return rows[0]?.record ?? null;
    },

    updateProgress: (id, value) => progress.add({ id, doc: JSON.stringify(value) }),

    async listLive(limit) {
      const rows = await sql<Array<{ id: string; status: ExecutionStatusName; updated_at: Date }>>`
        select id, status, updated_at from executions
        where status in ('PENDING', 'RUNNING') order by updated_at limit ${limit}`;
      return rows.map((r) => ({ id: r.id, status: r.status, updatedAt: r.updated_at }));
    },
  };
}
