/**
 * WebhookStore on SQL: the delivery outbox. Claims are one statement (`update … from (select …
 * for update skip locked)`), so two workers never take the same row and a worker never waits on
 * another's claim; on PGlite (one session) the statement alone is what makes a claim exclusive.
 * Every outcome update is guarded by the attempt number, so an attempt whose claim lapsed and was
 * retaken by another worker cannot overwrite the newer attempt's outcome.
 */
import type { NewWebhookDelivery, WebhookAttemptRecord, WebhookDelivery, WebhookDeliveryStatus } from '../../../domain/webhooks.js';
import type { WebhookStore } from '../../../ports/webhooks.js';
import type { Sql } from './connect.js';

interface DeliveryRow {
  readonly id: string;
  readonly execution_id: string;
  readonly account_id: string;
  readonly url: string;
  readonly event: string;
  readonly sequence: number;
  readonly body: string;
  readonly headers: Record<string, string>;
  readonly signing_secret: string | null;
  readonly status: WebhookDeliveryStatus;
  readonly attempts: number;
  readonly max_attempts: number;
  readonly next_attempt_at: Date;
  readonly last_status_code: number | null;
  readonly last_error: string | null;
  readonly last_attempt_at: Date | null;
  readonly created_at: Date;
  readonly delivered_at: Date | null;
}

/** Longest error text kept per attempt. */
const MAX_ERROR_LENGTH = 500;

function toDelivery(row: DeliveryRow): WebhookDelivery {
  return {
    id: row.id,
    executionId: row.execution_id,
    accountId: row.account_id,
    url: row.url,
    event: row.event,
    sequence: row.sequence,
    body: row.body,
    headers: row.headers,
    signingSecret: row.signing_secret,
    status: row.status,
    attempts: row.attempts,
    maxAttempts: row.max_attempts,
    nextAttemptAt: row.next_attempt_at,
    lastStatusCode: row.last_status_code,
    lastError: row.last_error,
    lastAttemptAt: row.last_attempt_at,
    createdAt: row.created_at,
    deliveredAt: row.delivered_at,
  };
}

function clipError(error: string | null): string | null {
  return error !== null && error.length > MAX_ERROR_LENGTH ? `${error.slice(0, MAX_ERROR_LENGTH)}…` : error;
}

function isUniqueViolation(err: unknown): boolean {
  return typeof err === 'object' && err !== null && (err as { code?: unknown }).code === '23505';
}

export function sqlWebhookStore(sql: Sql): WebhookStore {
  async function insert(d: NewWebhookDelivery): Promise<WebhookDelivery | null> {
    const rows = await sql<DeliveryRow[]>`
      insert into webhook_deliveries
        (id, execution_id, account_id, url, event, sequence, body, headers, signing_secret, max_attempts, next_attempt_at)
      select ${d.id}, ${d.executionId}, ${d.accountId}, ${d.url}, ${d.event},
             coalesce(max(sequence), 0) + 1, ${d.body}, ${sql.json({ ...d.headers })}, ${d.signingSecret},
             ${d.maxAttempts}, ${d.nextAttemptAt}
      from webhook_deliveries where execution_id = ${d.executionId}
      on conflict (execution_id, event) do nothing
      returning *`;
    const row = rows[0];
    return row === undefined ? null : toDelivery(row);
  }

  async function existing(executionId: string, event: string): Promise<WebhookDelivery | null> {
    const rows = await sql<DeliveryRow[]>`
      select * from webhook_deliveries where execution_id = ${executionId} and event = ${event}`;
    const row = rows[0];
    return row === undefined ? null : toDelivery(row);
  }

  async function finish(
    id: string,
    record: WebhookAttemptRecord,
    status: 'delivered' | 'failed' | 'pending',
    nextAttemptAt: Date | null,
  ): Promise<boolean> {
    const final = status !== 'pending';
    const rows = await sql`
      update webhook_deliveries set
        status = ${status},
        lease_until = null,
        last_status_code = ${record.statusCode},
        last_error = ${clipError(record.error)},
        last_attempt_at = ${record.at},
        next_attempt_at = coalesce(${nextAttemptAt}::timestamptz, next_attempt_at),
        delivered_at = case when ${status} = 'delivered' then ${record.at}::timestamptz else delivered_at end,
        signing_secret = case when ${final} then null else signing_secret end
      where id = ${id} and status = 'delivering' and attempts = ${record.attempt}
      returning 1`;
    return rows.length > 0;
  }

  return {
    async enqueue(delivery: NewWebhookDelivery): Promise<WebhookDelivery> {
      // Two enqueues for one execution at once could compute the same sequence; the loser retries.
      for (let attempt = 0; ; attempt++) {
        try {
          const inserted = await insert(delivery);
          if (inserted !== null) return inserted;
          const found = await existing(delivery.executionId, delivery.event);
          if (found !== null) return found;
        } catch (err) {
          if (!isUniqueViolation(err) || attempt >= 2) throw err;
        }
        if (attempt >= 2) throw new Error(`could not enqueue webhook ${delivery.id}`);
      }
    },

    async claimDue(now: Date, limit: number, leaseMs: number): Promise<WebhookDelivery[]> {
      if (limit <= 0) return [];
      const leaseUntil = new Date(now.getTime() + leaseMs);
      // A row is due when pending and its time has come, or when its claim lapsed (the worker
      // that held it died mid-attempt). It waits while an earlier row of its execution is unfinished.
      const rows = await sql<DeliveryRow[]>`
        update webhook_deliveries d set
          status = 'delivering',
          attempts = d.attempts + 1,
          lease_until = ${leaseUntil}
        from (
          select c.id from webhook_deliveries c
          where ((c.status = 'pending' and c.next_attempt_at <= ${now})
                 or (c.status = 'delivering' and c.lease_until <= ${now}))
            and not exists (
              select 1 from webhook_deliveries e
              where e.execution_id = c.execution_id and e.sequence < c.sequence
                and e.status in ('pending', 'delivering'))
          order by c.next_attempt_at, c.sequence
          limit ${limit}
          for update skip locked
        ) due
        where d.id = due.id
        returning d.*`;
      return rows.map(toDelivery).sort((a, b) => a.nextAttemptAt.getTime() - b.nextAttemptAt.getTime() || a.sequence - b.sequence);
    },

    markDelivered: (id, record) => finish(id, record, 'delivered', null),
    scheduleRetry: (id, record, nextAttemptAt) => finish(id, record, 'pending', nextAttemptAt),
    markFailed: (id, record) => finish(id, record, 'failed', null),

    async listByExecution(accountId: string, executionId: string): Promise<WebhookDelivery[]> {
      const rows = await sql<DeliveryRow[]>`
        select * from webhook_deliveries
        where execution_id = ${executionId} and account_id = ${accountId}
        order by sequence`;
      return rows.map(toDelivery);
    },

    async nextDueAt(): Promise<Date | null> {
      const [row] = await sql<{ at: Date | null }[]>`
        select min(case when status = 'pending' then next_attempt_at else lease_until end) as at
        from webhook_deliveries where status in ('pending', 'delivering')`;
      return row?.at ?? null;
    },
  };
}
