/**
 * ExecutionStore on SQL. New executions are group-committed (one multi-row insert per batch), so
 * "202 only once durably recorded" stays cheap under load. Status changes are conditional
 * updates, so a cancel and a completion racing each other cannot both win.
 */
import type { ExecutionPatch, ExecutionRecord, ExecutionStatusName, ExecutionStore } from '../ports.js';
import { decodePosition, encodePosition } from './newest-first.js';
import type { Sql } from './connect.js';
import { GroupCommit } from './group-commit.js';

interface TransitionItem {
  readonly id: string;
  readonly from: readonly ExecutionStatusName[];
  readonly status: ExecutionStatusName;
  readonly doc: string;
}

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

  // Conditional updates batched like inserts: each row only moves if its status is one of its
  // own `from` states, and each caller gets its own row back (or null when it did not move).
  const transitions = new GroupCommit<TransitionItem, ExecutionRecord | null>(async (items) => {
    // One execution may appear twice in a batch (say a completion and a cancel); an UPDATE ... FROM
    // applies only one source row per target, so repeats go into a later round, in arrival order.
    const results = new Array<ExecutionRecord | null>(items.length).fill(null);
    let round = items.map((item, index) => ({ item, index }));
    while (round.length > 0) {
      const seen = new Set<string>();
      const now = round.filter(({ item }) => (seen.has(item.id) ? false : (seen.add(item.id), true)));
      round = round.filter((entry) => !now.includes(entry));
      const rows = await sql<Array<{ id: string; record: ExecutionRecord }>>`
        update executions e set status = u.status, record = e.record || u.doc, updated_at = now()
        from unnest(
          ${now.map(({ item }) => item.id)}::text[], ${now.map(({ item }) => item.from.join(','))}::text[],
          ${now.map(({ item }) => item.status)}::text[], ${now.map(({ item }) => item.doc)}::text[]::jsonb[]
        ) as u(id, from_states, status, doc)
        where e.id = u.id and e.status = any(string_to_array(u.from_states, ','))
        returning e.id, e.record`;
      const moved = new Map(rows.map((r) => [r.id, r.record]));
      for (const { item, index } of now) results[index] = moved.get(item.id) ?? null;
    }
    return results;
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

    transition: (id, from, status, patch: ExecutionPatch) => transitions.add({ id, from, status, doc: JSON.stringify({ ...patch, status }) }),

    updateProgress: (id, value) => progress.add({ id, doc: JSON.stringify(value) }),

    async listLive(limit) {
      const rows = await sql<Array<{ id: string; status: ExecutionStatusName; updated_at: Date }>>`
        select id, status, updated_at from executions
        where status in ('PENDING', 'RUNNING') order by updated_at limit ${limit}`;
      return rows.map((r) => ({ id: r.id, status: r.status, updatedAt: r.updated_at }));
    },

    async listByAccount(accountId, query) {
      const after = query.after === null ? null : decodePosition(query.after);
      // Served by executions_account_created (account_id, created_at desc).
      const rows = await sql<Array<{ record: ExecutionRecord; created_at: Date; id: string }>>`
        select record, created_at, id from executions
        where account_id = ${accountId}
          and (${query.status}::text is null or status = ${query.status}::text)
          and (${after?.createdAt ?? null}::timestamptz is null
               or (created_at, id) < (${after?.createdAt ?? null}::timestamptz, ${after?.id ?? ''}::text))
        order by created_at desc, id desc
        limit ${query.limit + 1}`;
      const page = rows.slice(0, query.limit);
      const last = page[page.length - 1];
      const nextCursor = rows.length > query.limit && last !== undefined ? encodePosition({ createdAt: last.created_at, id: last.id }) : null;
      return { items: page.map((r) => r.record), nextCursor };
    },
  };
}
