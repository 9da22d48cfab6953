/**
 * Text Postgres cannot store as sent: a NUL character (text and jsonb both refuse U+0000) or a
 * lone UTF-16 surrogate (not representable in UTF-8: jsonb refuses its `\ud800` escape, a text
 * column would silently get U+FFFD). Found at the HTTP edge so a client gets 400 naming the field
 * instead of a 500 from the store, and so every store (PGlite, Postgres, Redis) sees the same input.
 */
import { invalidRequest, type ApiError } from '../domain/errors.js';

/** NUL, or a surrogate that is not half of a pair (the `u` flag reads a pair as one code point). */
const UNSTORABLE = /[\u0000\p{Cs}]/u;

/** What is wrong with a string, or null when it can be stored. */
export function unstorableReason(text: string): string | null {
  if (!UNSTORABLE.test(text)) return null;
  return text.includes('\u0000') ? 'a NUL character (U+0000)' : 'a lone surrogate (not valid Unicode)';
}

/** A decoded path parameter; throws 400 INVALID_REQUEST naming it. */
export function assertStorableParam(name: string, value: string): void {
  const reason = unstorableReason(value);
  if (reason !== null) throw invalidRequest(name, `Path parameter '${name}' contains ${reason}`);
}

/** One decoded query parameter; a bad name is reported without echoing it (field `query`). */
export function assertStorableQuery(name: string, value: string): void {
  const nameReason = unstorableReason(name);
  if (nameReason !== null) throw invalidRequest('query', `A query parameter name contains ${nameReason}`);
  const reason = unstorableReason(value);
  if (reason !== null) throw invalidRequest(name, `Query parameter '${name}' contains ${reason}`);
}

interface Pending {
  readonly node: unknown;
  readonly key: string;
  readonly parent: Pending | null;
}

/**
 * Walks a parsed JSON body (iteratively: nesting depth is the schema's business, not a stack's)
 * and throws 400 INVALID_REQUEST for the first string value or object key that cannot be stored,
 * with `field` the dotted path (`context.notes.0`) as schema errors name it.
 */
export function assertStorableBody(body: unknown): void {
  const stack: Pending[] = [{ node: body, key: '', parent: null }];
  while (stack.length > 0) {
    const item = stack.pop()!;
    const { node } = item;
    if (typeof node === 'string') {
      const reason = unstorableReason(node);
      if (reason !== null) throw bodyError(pathOf(item), reason, false);
    } else if (Array.isArray(node)) {
      for (let i = node.length - 1; i >= 0; i--) stack.push({ node: node[i], key: String(i), parent: item });
    } else if (node !== null && typeof node === 'object') {
      const keys = Object.keys(node);
      for (let i = keys.length - 1; i >= 0; i--) {
        const key = keys[i]!;
        const reason = unstorableReason(key);
        if (reason !== null) throw bodyError(pathOf(item), reason, true);
        stack.push({ node: (node as Record<string, unknown>)[key], key, parent: item });
      }
    }
  }
}

function pathOf(item: Pending): string {
  const parts: string[] = [];
  for (let at: Pending | null = item; at !== null && at.parent !== null; at = at.parent) parts.push(at.key);
  return parts.reverse().join('.');
}

function bodyError(field: string, reason: string, inKey: boolean): ApiError {
  const subject = field === '' ? 'the request body' : `'${field}'`;
  const message = inKey ? `A field name in ${subject} contains ${reason}` : `${field === '' ? 'The request body' : subject} contains ${reason}`;
  return invalidRequest(field, message);
}
