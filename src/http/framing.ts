/**
 * Request framing checks uWS leaves to us. Two `Content-Length` values that differ (as separate
 * headers or a comma list) make the body's length ambiguous: uWS takes the first and would parse
 * the rest of the body as a next request, the opening for request smuggling behind a proxy that
 * takes another. RFC 9112 §6.3 says such a message is unrecoverable: answer 400 and close.
 * uWS keeps parsing what follows in its buffer even after a response with close, so when the
 * first value is the smaller one the connection is dropped without an answer instead.
 */
import type { HttpRequest } from 'uWebSockets.js';

/**
 * How the request's Content-Length values disagree: `none` (one value, or identical repeats, which
 * RFC 9110 §8.6 allows), `first-largest` (uWS frames the body by the first value, so it swallows
 * every byte the other values claim: a 400 with close is safe), or `first-smaller` (uWS would
 * parse the tail of the body as a next request on this connection, even after a 400 with close:
 * the only safe answer is to drop the connection at once). Must run synchronously in the handler.
 */
export type ContentLengthConflict = 'none' | 'first-largest' | 'first-smaller';

export function contentLengthConflict(req: HttpRequest): ContentLengthConflict {
  const values: string[] = [];
  req.forEach((name, value) => {
    if (name !== 'content-length') return;
    for (const part of value.split(',')) values.push(part.trim());
  });
  if (values.length < 2 || values.every((v) => v === values[0])) return 'none';
  const first = Number(values[0]);
  return values.every((v) => Number.isFinite(Number(v)) && Number(v) <= first) ? 'first-largest' : 'first-smaller';
}
