/**
 * Account creation, shared by POST /v1/accounts and `baton accounts create`. Custom limits and
 * fee are ENTERPRISE features; ENTERPRISE defaults fill whatever the operator leaves out.
 */
import { ENTERPRISE_DEFAULT_LIMITS } from '../domain/limits.js';
import { invalidRequest } from '../domain/errors.js';
import { newId } from '../domain/ids.js';
import type { CreateAccountBody } from '../schemas/accounts.js';
import type { Account, AccountLimits } from '../domain/accounts.js';
import type { AccountStore } from '../ports/accounts.js';


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
