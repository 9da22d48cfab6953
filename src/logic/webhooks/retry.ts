/**
 * Delivery retry policy (DESIGN §11): 2xx is delivered; network errors, 5xx, 408 and 429 are
 * retried with exponential backoff and full-range jitter; any other status (3xx included: a
 * redirect is not accepted, and not followed) is final. 8 attempts: the gaps grow from about 1 s
 * by ×3.7 (1 s, 3.7 s, 14 s, 51 s, 3 min, 12 min, 43 min), about an hour in all.
 */

export interface RetryPolicy {
  /** Total attempts, the first included. */
  readonly maxAttempts: number;
  /** Gap before the second attempt (before jitter). */
  readonly baseDelayMs: number;
  readonly factor: number;
  /** Jitter spread: the gap is scaled by a random factor in [1 - jitter, 1 + jitter]. */
  readonly jitter: number;
  /** No gap exceeds this. */
  readonly maxDelayMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  maxAttempts: 8,
  baseDelayMs: 1_000,
  factor: 3.7,
  jitter: 0.2,
  maxDelayMs: 60 * 60_000,
};

export type AttemptVerdict = 'delivered' | 'retry' | 'final';

/** What an HTTP status means for a delivery. */
export function classifyStatus(status: number): AttemptVerdict {
  if (status >= 200 && status < 300) return 'delivered';
  if (status >= 500 || status === 408 || status === 429) return 'retry';
  return 'final';
}

/**
 * The gap after failed attempt number `attempt` (1-based). `random` in [0, 1). A receiver's
 * Retry-After (seconds) stretches the gap, capped by `maxDelayMs`, but never shortens it.
 */
export function retryDelayMs(attempt: number, policy: RetryPolicy = DEFAULT_RETRY_POLICY, random: () => number = Math.random, retryAfterSeconds?: number): number {
  const exponential = policy.baseDelayMs * policy.factor ** Math.max(0, attempt - 1);
  const jittered = exponential * (1 - policy.jitter + 2 * policy.jitter * random());
  const asked = retryAfterSeconds !== undefined && Number.isFinite(retryAfterSeconds) && retryAfterSeconds > 0 ? retryAfterSeconds * 1000 : 0;
  return Math.round(Math.min(policy.maxDelayMs, Math.max(jittered, asked)));
}

/** Seconds from a Retry-After header (delta-seconds or an HTTP date), if it has a usable value. */
export function parseRetryAfter(value: string | undefined, nowMs: number): number | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed);
  const at = Date.parse(trimmed);
  return Number.isNaN(at) ? undefined : Math.max(0, (at - nowMs) / 1000);
}
