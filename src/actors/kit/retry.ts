/**
 * Retries a store write with capped exponential backoff until it succeeds or a deadline passes.
 * Actors persist results and transitions through it, so a store that fails for a few seconds
 * (a restart, a deadlock victim, a dropped connection) delays the write instead of faulting the
 * actor and throwing away an agent's answer. The deadline is the owner's lease: past it another
 * worker may judge the owner dead, so retrying longer would only race that worker's recovery.
 */
import { realClock, type Clock } from './clock.js';

export interface RetryOptions {
  /** Give up (rethrow the last error) once this many ms have passed since the first attempt. */
  readonly withinMs: number;
  /** First wait; doubled after every failure up to `maxDelayMs`. Default 50. */
  readonly initialDelayMs?: number;
  /** Default 1000. */
  readonly maxDelayMs?: number;
  readonly clock?: Clock;
  /** Told of each failure that will be retried, with the wait before the next attempt. */
  readonly onRetry?: (error: unknown, attempt: number, delayMs: number) => void;
  /** Errors for which another attempt cannot help (default: every error is retried). */
  readonly isPermanent?: (error: unknown) => boolean;
}

export async function retryWithin<T>(work: () => Promise<T>, options: RetryOptions): Promise<T> {
  const clock = options.clock ?? realClock;
  const maxDelayMs = options.maxDelayMs ?? 1_000;
  const giveUpAt = clock.now() + options.withinMs;
  let delayMs = options.initialDelayMs ?? 50;
  for (let attempt = 1; ; attempt++) {
    try {
      return await work();
    } catch (error) {
      if (options.isPermanent?.(error) === true) throw error;
      const left = giveUpAt - clock.now();
      if (left <= 0) throw error;
      const wait = Math.min(delayMs, left);
      options.onRetry?.(error, attempt, wait);
      await new Promise<void>((resolve) => clock.setTimeout(resolve, wait));
      delayMs = Math.min(delayMs * 2, maxDelayMs);
    }
  }
}

/**
 * `target` with each of `methods` retried by `retryWithin` (options built per call, so a fresh
 * deadline each time); other members pass through. For store ports handed to an actor whole.
 */
export function withRetries<T extends object>(target: T, methods: readonly (keyof T)[], options: () => RetryOptions): T {
  const wrapped = new Map<PropertyKey, unknown>();
  for (const name of methods) {
    const method = target[name];
    if (typeof method !== 'function') continue;
    wrapped.set(name, (...args: unknown[]) => retryWithin(() => (method as (...a: unknown[]) => Promise<unknown>).apply(target, args), options()));
  }
  return new Proxy(target, {
    get: (object, property, receiver) => (wrapped.has(property) ? wrapped.get(property) : Reflect.get(object, property, receiver)),
  });
}
