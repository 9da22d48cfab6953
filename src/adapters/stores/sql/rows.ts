/** Row shapes as postgres.js returns them (snake_case, timestamptz as Date) and their mapping. */
import type { Account, AccountLimits, Tier } from '../../../domain/accounts.js';
import type { ApiKeyRecord } from '../../../domain/api-keys.js';

export interface AccountRow {
  readonly id: string;
  readonly name: string;
  readonly tier: Tier;
  readonly limits: AccountLimits | null;
  readonly fee_basis_points: number | null;
  readonly created_at: Date;
}

export interface ApiKeyRow {
  readonly id: string;
  readonly account_id: string;
  readonly name: string;
  readonly key_hash: string;
  readonly permissions: string[];
  readonly created_at: Date;
  readonly expires_at: Date | null;
  readonly is_active: boolean;
  readonly ip_whitelist: string[] | null;
  readonly last_used_at: Date | null;
}

export const ACCOUNT_COLUMNS = ['id', 'name', 'tier', 'limits', 'fee_basis_points', 'created_at'] as const;

export const API_KEY_COLUMNS = [
  'id',
  'account_id',
  'name',
  'key_hash',
  'permissions',
  'created_at',
  'expires_at',
  'is_active',
  'ip_whitelist',
  'last_used_at',
] as const;

export function toAccount(row: AccountRow): Account {
  return {
    id: row.id,
    name: row.name,
    tier: row.tier,
    limits: row.limits,
    feeBasisPoints: row.fee_basis_points,
    createdAt: row.created_at,
  };
}

export function toApiKey(row: ApiKeyRow): ApiKeyRecord {
  return {
    id: row.id,
    accountId: row.account_id,
    name: row.name,
    keyHash: row.key_hash,
    permissions: row.permissions,
    createdAt: row.created_at,
    expiresAt: row.expires_at,
    isActive: row.is_active,
    ipWhitelist: row.ip_whitelist,
    lastUsedAt: row.last_used_at,
  };
}
