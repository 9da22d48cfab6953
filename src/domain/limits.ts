/**
 * Limits per tier (spec §8). DEVELOPER and BUSINESS use the table; ENTERPRISE accounts carry
 * their own limits (filled from ENTERPRISE_DEFAULT_LIMITS at creation), falling back to those
 * defaults for an account stored without any.
 */
import type { Account, AccountLimits, Tier } from '../stores/ports.js';
import { ENTERPRISE_DEFAULT_LIMITS } from './accounts.js';

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
