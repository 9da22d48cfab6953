/**
 * Deadlines on store calls made for a request. A store that stops answering (Postgres or Redis
 * down, paused, or behind a dropped network path) must not hold a client for the driver's own
 * timeouts: past the deadline the call rejects with `StoreDeadlineExceeded`, which the pipeline
 * answers as 503 SERVICE_UNAVAILABLE with Retry-After (src/http/unavailable.ts).
 *
 * The call itself is not cancelled (neither driver can take back a statement already sent): a
 * late write may still land. Only request-path ports are wrapped, and only methods whose late
 * success leaves nothing stuck (see `requestPathStores`); background work keeps its own retries.
 */

export const STORE_DEADLINE_CODE = 'STORE_DEADLINE_EXCEEDED';

export class StoreDeadlineExceeded extends Error {
  readonly code = STORE_DEADLINE_CODE;
  constructor(
    readonly operation: string,
    readonly deadlineMs: number,
  ) {
    super(`store call ${operation} did not answer within ${deadlineMs} ms`);
    this.name = 'StoreDeadlineExceeded';
  }
}

/**
 * Settles like `work`, or rejects with StoreDeadlineExceeded once `deadlineMs` has passed. When
 * the timer fires, the event loop may simply have been busy past the deadline with the answer
 * already waiting in its I/O queue: one setImmediate turn lets that I/O be processed first, so a
 * late event loop is not blamed on the store.
 */
export function withDeadline<T>(work: Promise<T>, deadlineMs: number, operation: string): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let settled = false;
    const timer = setTimeout(() => {
      setImmediate(() => {
        if (settled) return;
        settled = true;
        reject(new StoreDeadlineExceeded(operation, deadlineMs));
      });
    }, deadlineMs);
    work.then(
      (value) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        // A failure after the deadline is dropped here (the caller already has its answer).
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}

type MethodsOf<T> = { [K in keyof T]: T[K] extends (...args: never[]) => unknown ? K : never }[keyof T];

/**
 * A view of `port` whose listed methods are bounded by `deadlineMs`; every other member is the
 * port's own (methods still called on the port itself, so adapters' private state is intact).
 */
export function boundPort<T extends object>(port: T, name: string, methods: readonly MethodsOf<T>[], deadlineMs: number): T {
  const bounded = new Set<PropertyKey>(methods as readonly PropertyKey[]);
  const cache = new Map<PropertyKey, unknown>();
  return new Proxy(port, {
    get(target, key) {
      const value: unknown = Reflect.get(target, key, target);
      if (typeof value !== 'function') return value;
      let wrapper = cache.get(key);
      if (wrapper === undefined) {
        const fn = value as (...args: unknown[]) => unknown;
        const operation = `${name}.${String(key)}`;
        wrapper = bounded.has(key)
          ? (...args: unknown[]): unknown => {
              const result = fn.apply(target, args);
              return result instanceof Promise ? withDeadline(result, deadlineMs, operation) : result;
            }
          : fn.bind(target);
        cache.set(key, wrapper);
      }
      return wrapper;
    },
  });
}
