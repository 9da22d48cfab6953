/**
 * ExecutionStore on SQL. New executions are group-committed (one multi-row insert per batch), so
 * "202 only once durably recorded" stays cheap under load. Status changes are conditional
 * updates, so a cancel and a completion racing each other cannot both win. Every batched UPDATE
 * first locks its rows in id order, so concurrent batches (progress against transitions, or two
 * workers) wait for each other instead of deadlocking.
 */
import type { ExecutionPatch, ExecutionRecord, ExecutionStatusName } from '../../../domain/executions.js';
import type { ExecutionStore } from '../../../ports/executions.js';
import { listNewestFirst } from './newest-first.js';
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

/** Deadlock victim (40P01) or serialization failure (40001): the statement did nothing; run it again. */
const RETRYABLE_SQLSTATES = new Set(['40P01', '40001']);
const MAX_DEADLOCK_RETRIES = 5;

/**
 * Runs a batched statement again when Postgres picked it as a deadlock victim. Batches take their
 * row locks in id order (the `locked` CTEs below), so two batches cannot deadlock each other;
 * this covers anything else that locks execution rows.
 */
async function retryDeadlock<T>(statement: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await statement();
    } catch (error) {
      const code = (error as { code?: unknown } | null)?.code;
      if (attempt > MAX_DEADLOCK_RETRIES || typeof code !== 'string' || !RETRYABLE_SQLSTATES.has(code)) throw error;
      await new Promise((resolve) => setTimeout(resolve, 5 * attempt + Math.random() * 20));
    }
  }
}

export function sqlExecutionStore(sql: Sql): ExecutionStore {
  // An insert whose idempotency key another execution holds records nothing and answers that
  // execution instead (the unique index decides, so two workers racing cannot both record one).
  const inserts = new GroupCommit<{ record: ExecutionRecord; key: string | null }, ExecutionRecord | null>(async (items) => {
    const records = items.map((i) => i.record);
    const ids = records.map((r) => r.id);
    const accounts = records.map((r) => r.accountId);
    const statuses = records.map((r) => r.status);
    const docs = records.map((r) => JSON.stringify(r));
    const created = records.map((r) => r.createdAt);
    const keys = items.map((i) => i.key);
    const rows = await sql<Array<{ id: string }>>`
      insert into executions (id, account_id, status, record, created_at, updated_at, idempotency_key)
      select id, account_id, status, record, created_at, created_at, idempotency_key
      from unnest(${ids}::text[], ${accounts}::text[], ${statuses}::text[], ${docs}::text[]::jsonb[], ${created}::timestamptz[], ${keys}::text[])
        as u(id, account_id, status, record, created_at, idempotency_key)
      on conflict (account_id, idempotency_key) where idempotency_key is not null do nothing
      returning id`;
    const inserted = new Set(rows.map((r) => r.id));
    return Promise.all(items.map(({ record, key }) => (inserted.has(record.id) || key === null ? null : byKey(record.accountId, key))));
  });

  async function byKey(accountId: string, key: string): Promise<ExecutionRecord | null> {
    const rows = await sql<ExecutionRow[]>`select record from executions where account_id = ${accountId} and idempotency_key = ${key}`;
    return rows[0]?.record ?? null;
  }

  const progress = new GroupCommit<{ id: string; doc: string }>(async (updates) => {
    // Later updates of the same execution supersede earlier ones in the batch.
    const latest = new Map(updates.map((u) => [u.id, u.doc]));
    await retryDeadlock(
      () => sql`
        with locked as materialized (
          select id from executions where id = any(${[...latest.keys()]}::text[]) and status = 'RUNNING' order by id for update
        )
        update executions e set record = e.record || jsonb_build_object('progress', u.progress), updated_at = now()
        from unnest(${[...latest.keys()]}::text[], ${[...latest.values()]}::text[]::jsonb[]) as u(id, progress), locked l
        where l.id = u.id and e.id = u.id and e.status = 'RUNNING'`,
    );
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
      const ids = now.map(({ item }) => item.id);
      const rows = await retryDeadlock(
        () => sql<Array<{ id: string; record: ExecutionRecord }>>`
          with locked as materialized (
            select id from executions where id = any(${ids}::text[]) order by id for update
          )
          update executions e set status = u.status, record = e.record || u.doc, updated_at = now()
          from unnest(
            ${ids}::text[], ${now.map(({ item }) => item.from.join(','))}::text[],
            ${now.map(({ item }) => item.status)}::text[], ${now.map(({ item }) => item.doc)}::text[]::jsonb[]
          ) as u(id, from_states, status, doc), locked l
          where l.id = u.id and e.id = u.id and e.status = any(string_to_array(u.from_states, ','))
          returning e.id, e.record`,
      );
      const moved = new Map(rows.map((r) => [r.id, r.record]));
      for (const { item, index } of now) results[index] = moved.get(item.id) ?? null;
    }
    return results;
  });

  return {
    insert: (record, idempotencyKey) => inserts.add({ record, key: idempotencyKey ?? null }),

    getByIdempotencyKey: byKey,

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

    listByAccount(accountId, query) {
      // Served by executions_account_created (account_id, created_at desc).
      return listNewestFirst<ExecutionRecord>(sql, 'executions', accountId, query);
    },
  };
}
