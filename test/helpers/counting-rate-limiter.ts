/**
 * A fake of the RateLimiter port (src/ports/limits.ts): fixed windows counted in memory per
 * account, decided by the same pure `decide` the stores use, on a clock the test controls.
 */
import type { RateLimitDecision, RateLimits } from '../../src/domain/limits.js';
import { decide } from '../../src/logic/rate-windows.js';
import type { RateLimiter } from '../../src/ports/limits.js';

const MINUTE_MS = 60_000;
const DAY_MS = 86_400_000;

export class CountingRateLimiter implements RateLimiter {
  /** Checks made, admitted or not. */
  checks = 0;
  readonly #counts = new Map<string, number>();
  constructor(readonly now: () => number) {}

  async check(accountId: string, limits: RateLimits): Promise<RateLimitDecision> {
    this.checks++;
    const at = this.now();
    const minuteKey = `${accountId}:m:${Math.floor(at / MINUTE_MS)}`;
    const dayKey = `${accountId}:d:${Math.floor(at / DAY_MS)}`;
    const minute = this.#counts.get(minuteKey) ?? 0;
    const day = this.#counts.get(dayKey) ?? 0;
    if (minute >= limits.perMinute || day >= limits.perDay) return decide(false, minute, day, limits, at);
    this.#counts.set(minuteKey, minute + 1);
    this.#counts.set(dayKey, day + 1);
    return decide(true, minute + 1, day + 1, limits, at);
  }
}
