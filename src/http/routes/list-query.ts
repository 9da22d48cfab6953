/**
 * Query parameters of the newest-first lists (GET /v1/executions, GET /v1/workflow-runs):
 * `status` (one of the list's statuses), `limit` (1–100, default 20) and `cursor` (the previous
 * page's `nextCursor`). Bad values are 400 INVALID_REQUEST naming the parameter.
 */
import { invalidRequest } from '../../domain/errors.js';
import { InvalidListCursor, type NewestFirstQuery } from '../../ports/list-query.js';

export const NEWEST_FIRST_DEFAULT_LIMIT = 20;
export const NEWEST_FIRST_MAX_LIMIT = 100;
const CURSOR_MAX_CHARS = 200;

export function newestFirstQuery<Status extends string>(query: URLSearchParams, statuses: readonly Status[]): NewestFirstQuery<Status> {
  const rawStatus = query.get('status') ?? '';
  const status = rawStatus === '' ? null : (statuses.find((s) => s === rawStatus) ?? null);
  if (rawStatus !== '' && status === null) throw invalidRequest('status', `'status' must be one of ${statuses.join(', ')}`);
  const rawLimit = query.get('limit') ?? '';
  const limit = rawLimit === '' ? NEWEST_FIRST_DEFAULT_LIMIT : Number(rawLimit);
  if (rawLimit !== '' && (!/^\d{1,3}$/.test(rawLimit) || limit < 1 || limit > NEWEST_FIRST_MAX_LIMIT)) {
    throw invalidRequest('limit', `'limit' must be an integer from 1 to ${NEWEST_FIRST_MAX_LIMIT}`);
  }
  const cursor = query.get('cursor') ?? '';
  if (cursor.length > CURSOR_MAX_CHARS) throw invalidRequest('cursor', `'cursor' must be at most ${CURSOR_MAX_CHARS} characters`);
  return { status, limit, after: cursor === '' ? null : cursor };
}

/** Runs a list read, turning a foreign cursor into a 400. */
export async function withCursorCheck<T>(read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (error) {
    if (error instanceof InvalidListCursor) throw invalidRequest('cursor', "'cursor' is not a cursor this service issued");
    throw error;
  }
}
