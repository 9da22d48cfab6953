/**
 * Fixed-window arithmetic shared by both Coordination adapters, so the Lua script and the
 * in-process code only count and the decision is built by the same code from the same numbers.
 *
 * Why fixed windows (aligned to the UTC minute and the UTC day) rather than sliding ones:
 * X-RateLimit-Reset must name one instant when the quota comes back, and with fixed windows that
 * instant is exact and the same on every node; each window is one integer counter with a TTL
 * (O(1) memory per account, versus a sorted set of timestamps per request for a sliding log,
 * which at ENTERPRISE rates is megabytes per account); and a refusal is monotonic within a
 * window (counts never go down before the reset), which lets callers cache "refused until X"
 * locally. The price is a possible burst of up to twice the per-minute limit across a minute
 * boundary, which the daily window still bounds.
 */
import type { RateLimitDecision, RateLimits } from '../domain/limits.js';

export const MINUTE_MS = 60_000;
export const DAY_MS = 86_400_000;
// A counter outlives its window by this much, so a node whose clock runs slightly behind still
// finds the counter of the window it believes is current.
const TTL_SLACK_MS = 5_000;

export interface WindowSpan {
  /** Window number since the epoch; part of the counter's key. */
  readonly index: number;
  readonly resetAtMs: number;
  /** How long the counter must live. */
  readonly ttlMs: number;
}

export function windowOf(nowMs: number, lengthMs: number): WindowSpan {
  const index = Math.floor(nowMs / lengthMs);
  const resetAtMs = (index + 1) * lengthMs;
  return { index, resetAtMs, ttlMs: resetAtMs - nowMs + TTL_SLACK_MS };
}

/** Throws on limits no counter could honour (negative, fractional, not finite). */
export function assertLimits(limits: RateLimits): void {
  for (const value of [limits.perMinute, limits.perDay]) {
    if (!Number.isSafeInteger(value) || value < 0) throw new RangeError(`rate limits must be non-negative integers, got ${value}`);
  }
}

/**
 * The decision for counts read (refused) or written (admitted) by one check.
 * `minuteCount`/`dayCount` include this request when it was admitted.
 */
export function decide(
  allowed: boolean,
  minuteCount: number,
  dayCount: number,
  limits: RateLimits,
  nowMs: number,
): RateLimitDecision {
  const minuteReset = (Math.floor(nowMs / MINUTE_MS) + 1) * MINUTE_MS;
  const dayReset = (Math.floor(nowMs / DAY_MS) + 1) * DAY_MS;
  const minuteRemaining = Math.max(0, limits.perMinute - minuteCount);
  const dayRemaining = Math.max(0, limits.perDay - dayCount);
  const minute = { limit: limits.perMinute, remaining: minuteRemaining, resetAtMs: minuteReset };
  const day = { limit: limits.perDay, remaining: dayRemaining, resetAtMs: dayReset };
  const remaining = Math.min(minuteRemaining, dayRemaining);
  if (allowed) {
    return {
      allowed,
      limit: limits.perMinute,
      remaining,
      resetAtMs: minuteReset,
      retryAfterSeconds: 0,
      window: dayRemaining < minuteRemaining ? 'day' : 'minute',
      minute,
      day,
    };
  }
  const dayRefused = dayCount >= limits.perDay;
  const waitMs = (dayRefused ? dayReset : minuteReset) - nowMs;
  return {
    allowed,
    limit: limits.perMinute,
    remaining,
    resetAtMs: minuteReset,
    retryAfterSeconds: Math.max(1, Math.ceil(waitMs / 1000)),
    window: dayRefused ? 'day' : 'minute',
    minute,
    day,
  };
}
