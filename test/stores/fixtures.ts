/** Builders for store tests: unique ids so tests sharing a database never collide. */
import { randomBytes } from 'node:crypto';
import type { NewAccount, NewApiKey } from '../../src/stores/ports.js';

const unique = (): string => randomBytes(6).toString('hex');

export function newAccount(overrides: Partial<NewAccount> = {}): NewAccount {
  return { id: `acct_${unique()}`, name: 'Acme', tier: 'DEVELOPER', limits: null, feeBasisPoints: null, ...overrides };
}

export function newKey(accountId: string, overrides: Partial<NewApiKey> = {}): NewApiKey {
  return {
    id: `key_${unique()}`,
    accountId,
    name: 'ci',
    keyHash: randomBytes(32).toString('hex'),
    permissions: ['agents:read', 'orchestrate:execute'],
    expiresAt: null,
    ipWhitelist: null,
    ...overrides,
  };
}
