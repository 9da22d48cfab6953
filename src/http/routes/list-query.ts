/**
 * Query parameters of the newest-first lists (GET /v1/executions, GET /v1/workflow-runs):
 * `status` (one of the list's statuses), `limit` (1–100, default 20) and `cursor` (the previous
 * page's `nextCursor`). Bad values are 400 INVALID_REQUEST naming the parameter.
 */
import { Type, type TSchema } from '@sinclair/typebox';
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

/** The query parameters above, for the route's OpenAPI entry. */
export function newestFirstQuerySchema(statuses: readonly string[]): TSchema {
  return Type.Object({
    status: Type.Optional(Type.Union(statuses.map((s) => Type.Literal(s)))),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: NEWEST_FIRST_MAX_LIMIT, default: NEWEST_FIRST_DEFAULT_LIMIT })),
    cursor: Type.Optional(Type.String({ description: "The previous page's nextCursor" })),
  });
}

/** A page of the list, for the route's OpenAPI entry: `{ [field]: item[], nextCursor }`. */
export function newestFirstPageSchema(field: string, item: TSchema, title: string): TSchema {
  return Type.Object({ [field]: Type.Array(item), nextCursor: Type.Union([Type.String(), Type.Null()]) }, { title });
}

/**
 * Runs a list read, turning a foreign cursor (the store's `foreign` error: InvalidListCursor for
 * the newest-first lists) into a 400.
 */
export async function withCursorCheck<T>(read: () => Promise<T>, foreign: abstract new (...args: never[]) => Error = InvalidListCursor): Promise<T> {
  try {
    return await read();
  } catch (error) {
    if (error instanceof foreign) throw invalidRequest('cursor', "'cursor' is not a cursor this service issued");
    throw error;
  }
}
