/**
 * The rate-limit check as the request path sees it: one `check` per authenticated request.
 * `directRateLimiter` calls the Coordination store itself (one Lua script per check, batched by
 * ioredis auto-pipelining) and remembers refusals locally: with fixed windows a refused account
 * stays refused until its window ends (counts never fall mid-window and refused requests are not
 * counted), so repeating the check in Redis would return the same answer. A client hammering a
 * refused key therefore costs no Redis round trips. bench/ measures this against the
 * RateLimitActor path (src/actors/rate-limit-actor.ts); see docs/observability.md and bench/RESULTS.md.
 */
import type { RateLimiter } from '../../ports/limits.js';
import type { Coordination } from '../../ports/coordination.js';
import type { RateLimitDecision, RateLimits } from '../../domain/limits.js';
import { decide } from '../../logic/rate-windows.js';


interface Refusal {
  readonly limits: RateLimits;
  readonly minuteCount: number;
  readonly dayCount: number;
  readonly untilMs: number;
}

export interface DirectRateLimiterOptions {
  /** Epoch milliseconds; tests pass a fake. */
  readonly now?: () => number;
  /** Most refused accounts remembered at once. Default 10,000. */
  readonly maxRefusals?: number;
}

export function directRateLimiter(
  store: Pick<Coordination, 'rateLimit'>,
  options: DirectRateLimiterOptions = {},
): RateLimiter {
  const now = options.now ?? Date.now;
  const maxRefusals = options.maxRefusals ?? 10_000;
  const refusals = new Map<string, Refusal>();

  function remember(accountId: string, limits: RateLimits, decision: RateLimitDecision): void {
    if (refusals.size >= maxRefusals) {
      const at = now();
      for (const [id, refusal] of refusals) if (refusal.untilMs <= at) refusals.delete(id);
      // Still full: forget the oldest; it will simply be asked of the store again.
      if (refusals.size >= maxRefusals) {
        const oldest = refusals.keys().next();
        if (oldest.done !== true) refusals.delete(oldest.value);
      }
    }
    refusals.set(accountId, {
      limits,
      minuteCount: limits.perMinute - decision.minute.remaining,
      dayCount: limits.perDay - decision.day.remaining,
      untilMs: decision.window === 'day' ? decision.day.resetAtMs : decision.minute.resetAtMs,
    });
  }

  return {
    async check(accountId, limits) {
      const at = now();
      const refusal = refusals.get(accountId);
      if (refusal !== undefined) {
        const sameLimits = refusal.limits.perMinute === limits.perMinute && refusal.limits.perDay === limits.perDay;
        if (sameLimits && at < refusal.untilMs) return decide(false, refusal.minuteCount, refusal.dayCount, limits, at);
        refusals.delete(accountId);
      }
      const decision = await store.rateLimit(accountId, limits, at);
      if (!decision.allowed) remember(accountId, limits, decision);
      return decision;
    },
  };
}
