/**
 * A WHATWG `fetch` for SDK clients that accept one (MCP, A2A): every request goes through the
 * guarded outbound dispatcher, so the URL policy holds at connect time (after DNS), the URL is
 * checked before anything is sent, redirects are not followed, and a response body that passes
 * `maxBytes` fails the read instead of filling memory.
 */
import { fetch as undiciFetch, type Dispatcher } from 'undici';
import { checkUrlSyntax, UrlNotAllowedError } from '../../domain/url-policy.js';
import type { GuardedFetch } from '../../ports/guarded-fetch.js';

export type { GuardedFetch };

export interface GuardedFetchOptions {
  readonly dispatcher: Dispatcher;
  readonly allowPrivate: boolean;
  /** Cap on one response body, in bytes; default 1 MiB. */
  readonly maxBytes?: number;
}

export const DEFAULT_FETCH_MAX_BYTES = 1024 * 1024;

/** Statuses a Response may not be built with a body for. */
const NULL_BODY_STATUSES: ReadonlySet<number> = new Set([101, 204, 205, 304]);

/** Thrown while reading a body that went over the cap. */
export class ResponseTooLargeError extends Error {
  readonly code = 'ERR_RESPONSE_TOO_LARGE';
  constructor(maxBytes: number) {
    super(`response larger than ${maxBytes} bytes`);
    this.name = 'ResponseTooLargeError';
  }
}

export function createGuardedFetch(options: GuardedFetchOptions): GuardedFetch {
  const maxBytes = options.maxBytes ?? DEFAULT_FETCH_MAX_BYTES;
  return async function guardedFetch(url, init) {
    const check = checkUrlSyntax(String(url), { allowPrivate: options.allowPrivate });
    if (!check.ok) throw new UrlNotAllowedError(check.reason, String(url), check.message);
    // undici's own fetch takes the dispatcher; its types differ from the DOM ones only nominally.
    const response = (await undiciFetch(check.url, {
      ...(init as object),
      redirect: 'manual',
      dispatcher: options.dispatcher,
    } as Parameters<typeof undiciFetch>[1])) as unknown as Response;
    if (response.body === null || NULL_BODY_STATUSES.has(response.status)) return response;
    return new Response(response.body.pipeThrough(byteCap(maxBytes)), {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
}

function byteCap(maxBytes: number): TransformStream<Uint8Array, Uint8Array> {
  let total = 0;
  return new TransformStream({
    transform(chunk, controller) {
      total += chunk.byteLength;
      if (total > maxBytes) controller.error(new ResponseTooLargeError(maxBytes));
      else controller.enqueue(chunk);
    },
  });
}
