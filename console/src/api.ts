/**
 * The console's only way to the service: the ordinary API, with the signed-in key in the
 * Authorization header. The key lives in sessionStorage (gone when the tab closes).
 */
const KEY_ITEM = 'baton.console.key';

export function storedKey(): string | null {
  return sessionStorage.getItem(KEY_ITEM);
}

export function storeKey(key: string | null): void {
  if (key === null) sessionStorage.removeItem(KEY_ITEM);
  else sessionStorage.setItem(KEY_ITEM, key);
}

export class ApiFailure extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export function authHeaders(key: string): Record<string, string> {
  return { authorization: `Bearer ${key}` };
}

/** JSON call; a non-2xx answer becomes an ApiFailure carrying the API's code and message. */
export async function call<T>(method: string, path: string, body?: unknown, key: string | null = storedKey()): Promise<T> {
  const headers: Record<string, string> = key === null ? {} : authHeaders(key);
  if (body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(path, { method, headers, body: body === undefined ? null : JSON.stringify(body) });
  const text = await response.text();
  const parsed: unknown = text === '' ? null : JSON.parse(text);
  if (!response.ok) {
    const error = (parsed ?? {}) as { error?: string; message?: string };
    throw new ApiFailure(response.status, error.error ?? 'HTTP_' + response.status, error.message ?? response.statusText);
  }
  return parsed as T;
}

export function describeError(error: unknown): string {
  if (error instanceof ApiFailure) return `${error.code}: ${error.message}`;
  return error instanceof Error ? error.message : String(error);
}
