/**
 * Account creation, shared by POST /v1/accounts and `baton accounts create`. Custom limits and
 * fee are ENTERPRISE features; ENTERPRISE defaults fill whatever the operator leaves out.
 */
import { invalidRequest } from '../errors.js';
import { newId } from '../ids.js';
import type { CreateAccountBody } from '../schemas/accounts.js';
import type { Account, AccountLimits, AccountStore } from '../stores/ports.js';

export const ENTERPRISE_DEFAULT_LIMITS: AccountLimits = {
  requestsPerMinute: 10_000,
  requestsPerDay: 10_000_000,
  concurrentExecutions: 100,
  queueSize: 1_000,
};

export async function createAccount(store: AccountStore, input: CreateAccountBody): Promise<Account> {
  const enterprise = input.tier === 'ENTERPRISE';
  if (!enterprise && input.limits !== undefined) {
    throw invalidRequest('limits', 'Custom limits are available on the ENTERPRISE tier only');
  }
  if (!enterprise && input.feePercent !== undefined) {
    throw invalidRequest('feePercent', 'A custom fee is available on the ENTERPRISE tier only');
  }
  return store.create({
    id: newId('acct_'),
    name: input.name,
    tier: input.tier,
    limits: enterprise ? { ...ENTERPRISE_DEFAULT_LIMITS, ...input.limits } : null,
    feeBasisPoints: enterprise ? Math.round((input.feePercent ?? 0) * 100) : null,
  });
}

export function accountView(account: Account) {
  return {
    id: account.id,
    name: account.name,
    tier: account.tier,
    limits: account.limits,
    feePercent: account.feeBasisPoints === null ? null : account.feeBasisPoints / 100,
    createdAt: account.createdAt.toISOString(),
  };
}
