/**
 * IdempotencyStore on SQL: one row per (account, key), claimed by an insert that only one
 * request can win; the winner stores its response, later requests with the same key replay it.
 * An in-progress claim expires after a short TTL (the owner's lease), a completed row after 24 h;
 * an expired row is replaced by a new claim.
 */
import type { IdempotencyClaim, IdempotencyStore } from '../../../ports/idempotency.js';
import type { Sql } from './connect.js';

interface ClaimRow {
  readonly request_hash: string;
  readonly state: 'in_progress' | 'done';
  readonly response_status: number | null;
  readonly response_body: unknown;
  readonly claimed: boolean;
}

export function sqlIdempotencyStore(sql: Sql): IdempotencyStore {
  return {
    async claim(accountId, key, requestHash, ttlMs): Promise<IdempotencyClaim> {
      const expiresAt = new Date(Date.now() + ttlMs);
      // Insert, or take over an expired row; otherwise return the existing row unchanged.
      const rows = await sql<ClaimRow[]>`
        insert into idempotency_keys (account_id, key, request_hash, state, expires_at)
        values (${accountId}, ${key}, ${requestHash}, 'in_progress', ${expiresAt})
        on conflict (account_id, key) do update
          set request_hash = excluded.request_hash, state = 'in_progress', response_status = null,
              response_body = null, created_at = now(), expires_at = excluded.expires_at
          where idempotency_keys.expires_at <= now()
        returning request_hash, state, response_status, response_body, true as claimed`;
      if (rows.length > 0) return { kind: 'claimed' };
      const existing = await sql<ClaimRow[]>`
        select request_hash, state, response_status, response_body, false as claimed
        from idempotency_keys where account_id = ${accountId} and key = ${key}`;
      const row = existing[0];
      // Deleted between the two statements (released after a failure): try again.
      if (row === undefined) return this.claim(accountId, key, requestHash, ttlMs);
      if (row.request_hash !== requestHash) return { kind: 'mismatch' };
      if (row.state === 'done') return { kind: 'done', status: row.response_status ?? 200, body: row.response_body };
      return { kind: 'in_progress' };
    },

    async complete(accountId, key, status, body, ttlMs) {
      await sql`
        update idempotency_keys set state = 'done', response_status = ${status}, response_body = ${JSON.stringify(body)}::text::jsonb,
          expires_at = ${new Date(Date.now() + ttlMs)}
        where account_id = ${accountId} and key = ${key}`;
    },

    async release(accountId, key) {
      await sql`delete from idempotency_keys where account_id = ${accountId} and key = ${key} and state = 'in_progress'`;
    },
  };
}
