/**
 * The pipeline's RequestGate for rate limits (DESIGN §10): every key-authenticated request is
 * counted against its account's per-minute and per-day windows; the answer's X-RateLimit-*
 * headers (per-minute window) go on the response, and a refusal becomes 429
 * RATE_LIMIT_EXCEEDED with Retry-After. A store failure propagates, and the pipeline answers 503.
 */
import type { Principal } from '../services/auth/principal.js';
import { limitsFor } from '../domain/limits.js';
import { rateLimitExceeded } from '../domain/errors.js';
import type { RequestGate } from './pipeline.js';
import type { Metrics } from '../support/metrics/index.js';
import type { RateLimitDecision, RateLimits } from '../domain/limits.js';
import type { Tier } from '../domain/accounts.js';
import type { RateLimiter } from '../ports/limits.js';

export const RATE_LIMIT_HEADERS = {
  limit: 'X-RateLimit-Limit',
  remaining: 'X-RateLimit-Remaining',
  reset: 'X-RateLimit-Reset',
} as const;

export function rateLimitHeaders(decision: RateLimitDecision): Record<string, string> {
  return {
    [RATE_LIMIT_HEADERS.limit]: String(decision.limit),
    [RATE_LIMIT_HEADERS.remaining]: String(decision.remaining),
    [RATE_LIMIT_HEADERS.reset]: String(Math.floor(decision.resetAtMs / 1000)),
  };
}

// Limits objects per account limits, so a check allocates no new one for DEVELOPER/BUSINESS.
const tierRates = new Map<Tier, RateLimits>();

function ratesOf(principal: Extract<Principal, { kind: 'key' }>): RateLimits {
  const account = principal.account;
  if (account.tier !== 'ENTERPRISE') {
    let rates = tierRates.get(account.tier);
    if (rates === undefined) {
      const limits = limitsFor(account);
      rates = { perMinute: limits.requestsPerMinute, perDay: limits.requestsPerDay };
      tierRates.set(account.tier, rates);
    }
    return rates;
  }
  const limits = limitsFor(account);
  return { perMinute: limits.requestsPerMinute, perDay: limits.requestsPerDay };
}

export function rateLimitGate(limiter: RateLimiter, metrics: Pick<Metrics, 'rateLimitRejected'>): RequestGate {
  return {
    async admit(principal) {
      if (principal.kind !== 'key') return null;
      const decision = await limiter.check(principal.account.id, ratesOf(principal));
      const headers = rateLimitHeaders(decision);
      if (decision.allowed) return headers;
      metrics.rateLimitRejected(principal.account.tier, decision.window);
      const window = decision.window === 'day' ? decision.day : decision.minute;
      throw rateLimitExceeded(
        decision.window,
        window.limit,
        window.remaining,
        new Date(window.resetAtMs),
        decision.retryAfterSeconds,
        headers,
      );
    },
  };
}
