/**
 * Limits per tier (spec §8). DEVELOPER and BUSINESS use the table; ENTERPRISE accounts carry
 * their own limits (filled from ENTERPRISE_DEFAULT_LIMITS at creation), falling back to those
 * defaults for an account stored without any.
 */
import type { Account, AccountLimits, Tier } from './accounts.js';

export const ENTERPRISE_DEFAULT_LIMITS: AccountLimits = {
  requestsPerMinute: 10_000,
  requestsPerDay: 10_000_000,
  concurrentExecutions: 100,
  queueSize: 1_000,
};

export const TIER_LIMITS: Readonly<Record<Tier, AccountLimits>> = {
  DEVELOPER: { requestsPerMinute: 100, requestsPerDay: 10_000, concurrentExecutions: 5, queueSize: 20 },
  BUSINESS: { requestsPerMinute: 500, requestsPerDay: 100_000, concurrentExecutions: 25, queueSize: 100 },
  ENTERPRISE: ENTERPRISE_DEFAULT_LIMITS,
};

/** The limits in force for an account. */
export function limitsFor(account: Pick<Account, 'tier' | 'limits'>): AccountLimits {
  if (account.tier === 'ENTERPRISE' && account.limits !== null) return account.limits;
  return TIER_LIMITS[account.tier];
}

/** Request-rate limits of one account (spec §8): fixed windows, per UTC minute and per UTC day. */
export interface RateLimits {
  readonly perMinute: number;
  readonly perDay: number;
}
/** One fixed window's state after a check. */
export interface RateWindow {
  readonly limit: number;
  /** Requests still admitted in this window (after this one, when it was admitted). */
  readonly remaining: number;
  /** When the window ends (epoch milliseconds). */
  readonly resetAtMs: number;
}
/**
 * The outcome of one rate-limit check. The top-level `limit`/`resetAtMs` are the per-minute
 * window's (what X-RateLimit-* carry); `remaining` is the smaller of both windows' remainders,
 * so a client is never told it has requests left that the daily window would refuse.
 */
export interface RateLimitDecision {
  readonly allowed: boolean;
  readonly limit: number;
  readonly remaining: number;
  readonly resetAtMs: number;
  /** 0 when allowed; otherwise whole seconds until the refusing window ends (at least 1). */
  readonly retryAfterSeconds: number;
  /** Refused: the window that refused (the day when both did). Allowed: the one with fewer requests left. */
  readonly window: 'minute' | 'day';
  readonly minute: RateWindow;
  readonly day: RateWindow;
}
/** Concurrency limits of one account (spec §8): slots running at once, and places in its queue. */
export interface ConcurrencyLimits {
  readonly concurrent: number;
  readonly queueSize: number;
}
/**
 * The outcome of taking a concurrency slot. `promoted`: holders of the same account moved from
 * the queue into slots by this call (slots whose lease had expired were reclaimed), which the
 * caller must start; in FIFO order.
 */
export type SlotAcquisition =
  | { readonly status: 'started'; readonly promoted: readonly string[] }
  /** `position`: 1 for the head of the queue. */
  | { readonly status: 'queued'; readonly position: number; readonly promoted: readonly string[] }
  | { readonly status: 'full'; readonly promoted: readonly string[] };
/** Where a holder stands: in a slot whose lease is live or expired, in the queue, or nowhere. */
export type SlotState = 'running' | 'expired' | 'queued' | 'none';

