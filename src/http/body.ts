/**
 * Reads a request body from uWS: chunks are copied (uWS reuses their memory after the callback),
 * the size is capped (413) whether or not Content-Length is declared, and a client that sends too
 * slowly is cut off (408). JSON is decoded as strict UTF-8.
 */
import type { HttpResponse } from 'uWebSockets.js';
import { ApiError, invalidRequest, payloadTooLarge, requestTimeout } from '../domain/errors.js';

export interface BodyLimits {
  readonly maxBytes: number;
  readonly timeoutMs: number;
}

/**
 * Bytes of an oversized body read and discarded before its 413 is sent. Reading them (rather than
 * answering and closing at once) lets a client that is still sending read the 413: closing a
 * socket with unread data makes the kernel send a reset, and the client sees EPIPE/ECONNRESET
 * instead of the answer. Past this many bytes, or the body timeout, the 413 goes out and the
 * connection is closed.
 */
export const DRAIN_MAX_BYTES = 64 * 1024 * 1024;

/** 413s whose body was read to its end: the connection is in a clean state and may stay open. */
const drainedToEnd = new WeakSet<ApiError>();

/** True when answering this readBody error may leave the connection open for the next request. */
export function leavesConnectionReusable(error: unknown): boolean {
  return error instanceof ApiError && drainedToEnd.has(error);
}

/**
 * Starts reading at once (must be called before the handler returns to uWS). Resolves with the
 * bytes; rejects with an ApiError: 408 for a body that did not arrive in time, 413 for one over
 * the cap (after discarding the rest, see DRAIN_MAX_BYTES). Unless `leavesConnectionReusable`
 * says otherwise, the response to the error should close the connection.
 */
export function readBody(res: HttpResponse, limits: BodyLimits): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let received = 0;
    let settled = false;
    let draining = false;
    const timer = setTimeout(() => fail(draining ? payloadTooLarge(limits.maxBytes) : requestTimeout()), limits.timeoutMs);
    timer.unref();
    function fail(error: ApiError): void {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      reject(error);
    }
    res.onData((chunk, isLast) => {
      if (settled) return;
      received += chunk.byteLength;
      if (draining) {
        if (isLast) {
          const error = payloadTooLarge(limits.maxBytes);
          drainedToEnd.add(error);
          fail(error);
        } else if (received > limits.maxBytes + DRAIN_MAX_BYTES) {
          fail(payloadTooLarge(limits.maxBytes));
        }
        return;
      }
      if (received > limits.maxBytes) {
        // Nothing more is kept; the rest is read and dropped so the client can read the 413.
        chunks.length = 0;
        draining = true;
        if (isLast) {
          const error = payloadTooLarge(limits.maxBytes);
          drainedToEnd.add(error);
          fail(error);
        }
        return;
      }
      if (chunk.byteLength > 0) chunks.push(Buffer.copyBytesFrom(new Uint8Array(chunk)));
      if (isLast) {
        settled = true;
        clearTimeout(timer);
        resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, received));
      }
    });
  });
}

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });

/** Parses a JSON body; an empty body is `undefined` (the schema then says what is missing). */
export function parseJsonBody(bytes: Buffer): unknown {
  if (bytes.length === 0) return undefined;
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    throw invalidRequest('', 'Request body is not valid UTF-8');
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    const detail = error instanceof SyntaxError ? error.message : 'unreadable';
    throw invalidRequest('', `Request body is not valid JSON: ${detail}`);
  }
}

/** True for `application/json` and `application/<x>+json`, with any parameters. */
export function isJsonContentType(value: string): boolean {
  const type = value.split(';', 1)[0]!.trim().toLowerCase();
  return type === 'application/json' || (type.startsWith('application/') && type.endsWith('+json'));
}
