import { RETRYABLE } from './error-codes.js';

/** A non-2xx answer from Baton: the status, the error code and the whole error body. */
export class BatonApiError extends Error {
  readonly status: number;
  /** The `error` code of src/domain/errors.ts, e.g. EXECUTION_NOT_FOUND; `HTTP_<status>` without a JSON body. */
  readonly code: string;
  readonly body: Readonly<Record<string, unknown>>;
  /**
   * Whether sending the same request again may succeed: the catalogue's flag for the code
   * (docs/errors.md). An answer that is not Baton's (no catalogue code, e.g. from a proxy) is
   * retryable only when it came with a Retry-After header.
   */
  readonly retryable: boolean;

  constructor(status: number, body: unknown, retryAfter: string | null = null) {
    const record = typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : {};
    const code = typeof record.error === 'string' ? record.error : `HTTP_${status}`;
    super(typeof record.message === 'string' ? `${code}: ${record.message}` : `${code}`);
    this.name = 'BatonApiError';
    this.status = status;
    this.code = code;
    this.body = record;
    this.retryable = Object.hasOwn(RETRYABLE, code) ? RETRYABLE[code]! : retryAfter !== null;
  }
}

/** openapi-fetch's `{ data, error, response }` → the data, or a thrown BatonApiError. */
export function unwrap<T>(result: { data?: T; error?: unknown; response: Response }): T {
  if (result.response.ok) return result.data as T;
  throw new BatonApiError(result.response.status, result.error, result.response.headers.get('Retry-After'));
}
