/**
 * Request framing checks uWS leaves to us. Two `Content-Length` values that differ (as separate
 * headers or a comma list) make the body's length ambiguous: uWS takes the first and would parse
 * the rest of the body as a next request, the opening for request smuggling behind a proxy that
 * takes another. RFC 9112 §6.3 says such a message is unrecoverable: answer 400 and close.
 */
import type { HttpRequest } from 'uWebSockets.js';

/** True when the request carries more than one distinct Content-Length value. Must run synchronously in the handler. */
export function hasConflictingContentLength(req: HttpRequest): boolean {
  let first: string | null = null;
  let conflict = false;
  req.forEach((name, value) => {
    if (conflict || name !== 'content-length') return;
    // Identical repeats (`5, 5`) are allowed by RFC 9110 §8.6; only differing values are an error.
    for (const part of value.split(',')) {
      const length = part.trim();
      if (first === null) first = length;
      else if (length !== first) conflict = true;
    }
  });
  return conflict;
}
