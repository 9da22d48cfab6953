/**
 * Waiting for an orchestration execution to finish. Each poll asks the server to hold the request
 * until the execution finishes (`?wait=<ms>`, at most 30000); a server that answers at once instead (no long
 * poll) is polled every `intervalMs`, so the helper works against either.
 */
import type { Client } from 'openapi-fetch';
import { unwrap } from './errors.js';
import type { components, paths } from './schema.js';

export type Execution = components['schemas']['Execution'];

/** A copy of TERMINAL_EXECUTION_STATUSES (src/domain/executions.ts): the client imports nothing of the server. */
const TERMINAL: ReadonlySet<string> = new Set(['COMPLETED', 'FAILED', 'CANCELLED']);

export interface WaitOptions {
  /** Give up (throws) after this long; default 5 minutes. */
  readonly timeoutMs?: number;
  /** Pause between polls when the server does not hold requests; default 500 ms. */
  readonly intervalMs?: number;
  /** Longest a single request asks the server to hold it, in milliseconds (at most 30000); default 20000. */
  readonly waitMs?: number;
  readonly signal?: AbortSignal;
}

export async function waitForExecution(api: Client<paths>, id: string, options: WaitOptions = {}): Promise<Execution> {
  const deadline = Date.now() + (options.timeoutMs ?? 300_000);
  const intervalMs = options.intervalMs ?? 500;
  for (;;) {
    const remainingMs = deadline - Date.now();
    if (remainingMs <= 0) throw new Error(`execution ${id} did not finish within ${options.timeoutMs ?? 300_000} ms`);
    const wait = Math.min(options.waitMs ?? 20_000, 30_000, remainingMs);
    const started = Date.now();
    const execution = unwrap(
      await api.GET('/v1/executions/{id}', {
        params: { path: { id }, query: { wait } },
        ...(options.signal !== undefined ? { signal: options.signal } : {}),
      }),
    );
    if (TERMINAL.has(execution.status)) return execution;
    // An answer well before `wait` ran out means the server did not hold the request: pause.
    if (Date.now() - started < wait / 2) await sleep(intervalMs, options.signal);
  }
}

export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
