/**
 * Keyset paging of lists read newest first by (created_at, id): a cursor is the last row's
 * position, so a page never skips or repeats rows as new ones arrive at the head.
 */
import { InvalidListCursor, type NewestFirstPage, type NewestFirstQuery } from '../../../ports/list-query.js';
import type { Sql } from './connect.js';

const CURSOR_PREFIX = 'nf1:';

export interface Position {
  readonly createdAt: Date;
  readonly id: string;
}

export function encodePosition(position: Position): string {
  return Buffer.from(`${CURSOR_PREFIX}${position.createdAt.getTime()}:${position.id}`, 'utf8').toString('base64url');
}

export function decodePosition(cursor: string): Position {
  const text = Buffer.from(cursor, 'base64url').toString('utf8');
  const match = /^nf1:(\d{1,15}):([A-Za-z0-9_-]{1,64})$/.exec(text);
  if (match === null) throw new InvalidListCursor();
  return { createdAt: new Date(Number(match[1])), id: match[2]! };
}

/** The tables listed newest first; each has (account_id, status, record, created_at, id) and an index on (account_id, created_at desc). */
export type NewestFirstTable = 'executions' | 'workflow_runs';

/**
 * One page of an account's rows of `table`, newest first, optionally of one status. Reads one row
 * more than the limit to know whether a next page exists.
 */
export async function listNewestFirst<Item>(
  sql: Sql,
  table: NewestFirstTable,
  accountId: string,
  query: NewestFirstQuery<string>,
): Promise<NewestFirstPage<Item>> {
  const after = query.after === null ? null : decodePosition(query.after);
  const rows = await sql<Array<{ record: Item; created_at: Date; id: string }>>`
    select record, created_at, id from ${sql(table)}
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
}
