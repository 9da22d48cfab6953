/**
 * UsageStore on SQL. Hourly counters answer the 24h/7d/30d windows; the request log keeps only
 * what `activity` shows (the most recent requests per key), pruned by `prune`.
 */
import type { KeyActivity } from '../../../domain/api-keys.js';
import type { UsageEntry } from '../../../domain/usage.js';
import type { UsageStore } from '../../../ports/usage.js';
import type { Sql } from './connect.js';

/** Most recent request rows kept per key; activity never shows more. */
export const REQUESTS_KEPT_PER_KEY = 100;
const REQUEST_RETENTION_DAYS = 30;
// One day beyond the widest window, so a 30-day count is never cut short by pruning.
const HOURLY_RETENTION_DAYS = 31;

const HOUR_MS = 3_600_000;

interface WindowRow {
  readonly last_used_at: Date | null;
  readonly last24h: string;
  readonly last7d: string;
  readonly last30d: string;
}

interface RequestRow {
  readonly key_id: string;
  readonly at: Date;
  readonly endpoint: string;
  readonly method: string;
  readonly status_code: number;
  readonly ip_address: string;
}

/** Start of the oldest hourly bucket counted in a window: windows are whole hours, so a count
 * may include up to one hour more than the exact window (never less). */
function windowStart(now: Date, hours: number): Date {
  const start = now.getTime() - hours * HOUR_MS;
  return new Date(start - (start % HOUR_MS));
}

export function sqlUsageStore(sql: Sql): UsageStore {
  return {
    async recordBatch(entries: readonly UsageEntry[]): Promise<void> {
      if (entries.length === 0) return;
      // Counted in full, but only the most recent REQUESTS_KEPT_PER_KEY requests of each key are
      // logged: activity never shows more, and prune would delete the rest. Under load one busy
      // key fills whole batches, so this keeps a batch's write small.
      const hourly = new Map<string, { keyId: string; hour: string; count: number }>();
      const latest = new Map<string, UsageEntry[]>();
      for (const e of entries) {
        const hourMs = e.at.getTime() - (e.at.getTime() % HOUR_MS);
        const bucket = `${e.keyId}\u0000${hourMs}`;
        const counted = hourly.get(bucket);
        if (counted === undefined) hourly.set(bucket, { keyId: e.keyId, hour: new Date(hourMs).toISOString(), count: 1 });
        else counted.count++;
        let kept = latest.get(e.keyId);
        if (kept === undefined) latest.set(e.keyId, (kept = []));
        kept.push(e);
      }
      // A fixed row order keeps concurrent batches from different workers from deadlocking.
      const buckets = [...hourly.values()].sort((a, b) => (a.keyId === b.keyId ? a.hour.localeCompare(b.hour) : a.keyId < b.keyId ? -1 : 1));
      const logged = [...latest.values()].flatMap((kept) =>
        kept.length <= REQUESTS_KEPT_PER_KEY ? kept : [...kept].sort((a, b) => a.at.getTime() - b.at.getTime()).slice(-REQUESTS_KEPT_PER_KEY),
      );
      // One statement, one round trip. Rows of keys deleted since the request are dropped (the
      // joins), since they would violate the foreign key and are unwanted anyway.
      await sql`
        with counts as (
          select u.* from unnest(${buckets.map((b) => b.keyId)}::text[], ${buckets.map((b) => b.hour)}::timestamptz[], ${buckets.map((b) => b.count)}::int[])
            as u(key_id, hour, count)
          join api_keys k on k.id = u.key_id
        ),
        requests as (
          select u.* from unnest(
            ${logged.map((e) => e.keyId)}::text[], ${logged.map((e) => e.at.toISOString())}::timestamptz[], ${logged.map((e) => e.endpoint)}::text[],
            ${logged.map((e) => e.method)}::text[], ${logged.map((e) => e.statusCode)}::int[], ${logged.map((e) => e.ipAddress)}::text[]
          ) as u(key_id, at, endpoint, method, status_code, ip_address)
          join api_keys k on k.id = u.key_id
        ),
        hourly as (
          insert into key_usage_hourly (key_id, hour, count)
          select key_id, hour, count from counts order by key_id, hour
          on conflict (key_id, hour) do update set count = key_usage_hourly.count + excluded.count
        ),
        touched as (
          update api_keys k set last_used_at = greatest(k.last_used_at, latest.at)
          from (select key_id, max(at) as at from requests group by key_id) latest
          where k.id = latest.key_id
        )
        insert into key_requests (key_id, at, endpoint, method, status_code, ip_address)
        select key_id, at, endpoint, method, status_code, ip_address from requests order by at`;
    },

    async activity(keyId: string, now: Date, recentLimit: number): Promise<KeyActivity> {
      const [windows, recent] = await Promise.all([
        sql<WindowRow[]>`
          select
            (select last_used_at from api_keys where id = ${keyId}) as last_used_at,
            coalesce(sum(count) filter (where hour >= ${windowStart(now, 24)}), 0)::text as last24h,
            coalesce(sum(count) filter (where hour >= ${windowStart(now, 24 * 7)}), 0)::text as last7d,
            coalesce(sum(count), 0)::text as last30d
          from key_usage_hourly
          where key_id = ${keyId} and hour >= ${windowStart(now, 24 * 30)} and hour <= ${now}`,
        sql<RequestRow[]>`
          select key_id, at, endpoint, method, status_code, ip_address from key_requests
          where key_id = ${keyId} and at <= ${now}
          order by at desc, id desc
          limit ${Math.max(0, Math.min(recentLimit, REQUESTS_KEPT_PER_KEY))}`,
      ]);
      const w = windows[0];
      return {
        keyId,
        lastUsedAt: w?.last_used_at ?? null,
        usageStats: {
          last24h: Number(w?.last24h ?? 0),
          last7d: Number(w?.last7d ?? 0),
          last30d: Number(w?.last30d ?? 0),
        },
        recentRequests: recent.map((r) => ({
          keyId: r.key_id,
          at: r.at,
          endpoint: r.endpoint,
          method: r.method,
          statusCode: r.status_code,
          ipAddress: r.ip_address,
        })),
      };
    },

    /** Returns request-log rows plus hourly rows removed. */
    async prune(now: Date): Promise<number> {
      const requestCutoff = new Date(now.getTime() - REQUEST_RETENTION_DAYS * 24 * HOUR_MS);
      const hourlyCutoff = new Date(now.getTime() - HOURLY_RETENTION_DAYS * 24 * HOUR_MS);
      const [row] = await sql<{ requests: number; hourly: number }[]>`
        with ranked as (
          select id, at, row_number() over (partition by key_id order by at desc, id desc) as rank
          from key_requests
        ),
        requests as (
          delete from key_requests where id in (
            select id from ranked where rank > ${REQUESTS_KEPT_PER_KEY} or at < ${requestCutoff}
          )
          returning 1
        ),
        hourly as (
          delete from key_usage_hourly where hour < ${hourlyCutoff} returning 1
        )
        select (select count(*) from requests)::int as requests, (select count(*) from hourly)::int as hourly`;
      return (row?.requests ?? 0) + (row?.hourly ?? 0);
    },
  };
}
