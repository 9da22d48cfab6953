/**
 * Keyset paging of lists read newest first by (created_at, id): a cursor is the last row's
 * position, so a page never skips or repeats rows as new ones arrive at the head.
 */
import { InvalidListCursor } from '../../../ports/list-query.js';

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
