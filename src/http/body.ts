/**
 * Reads a request body from uWS: chunks are copied (uWS reuses their memory after the callback),
 * the size is capped (413) whether or not Content-Length is declared, and a client that sends too
 * slowly is cut off (408). JSON is decoded as strict UTF-8.
 */
import type { HttpResponse } from 'uWebSockets.js';
import { invalidRequest, payloadTooLarge, requestTimeout, type ApiError } from '../errors.js';

export interface BodyLimits {
  readonly maxBytes: number;
  readonly timeoutMs: number;
}

/**
 * Starts reading at once (must be called before the handler returns to uWS). Resolves with the
 * bytes; rejects with an ApiError whose response should close the connection.
 */
export function readBody(res: HttpResponse, limits: BodyLimits): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let received = 0;
    let settled = false;
    const timer = setTimeout(() => fail(requestTimeout()), limits.timeoutMs);
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
      if (received > limits.maxBytes) {
        fail(payloadTooLarge(limits.maxBytes));
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
