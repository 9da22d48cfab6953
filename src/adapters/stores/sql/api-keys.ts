/** ApiKeyStore on SQL. Every per-key query is scoped by account, so other accounts' keys are invisible. */
import type { AccountLimits, Tier } from '../../../domain/accounts.js';
import type { ApiKeyRecord, KeyWithAccount, NewApiKey } from '../../../domain/api-keys.js';
import type { ApiKeyStore } from '../../../ports/api-keys.js';
import type { Sql } from './connect.js';
import { API_KEY_COLUMNS, toAccount, toApiKey, type ApiKeyRow } from './rows.js';

interface KeyWithAccountRow extends ApiKeyRow {
  readonly a_name: string;
  readonly a_tier: Tier;
  readonly a_limits: AccountLimits | null;
  readonly a_fee_basis_points: number | null;
  readonly a_created_at: Date;
}

export function sqlApiKeyStore(sql: Sql): ApiKeyStore {
  const columns = sql(API_KEY_COLUMNS);
  return {
    async create(key: NewApiKey): Promise<ApiKeyRecord> {
      const whitelist = key.ipWhitelist === null ? null : [...key.ipWhitelist];
      const [row] = await sql<ApiKeyRow[]>`
        insert into api_keys (id, account_id, name, key_hash, permissions, expires_at, ip_whitelist)
        values (${key.id}, ${key.accountId}, ${key.name}, ${key.keyHash}, ${[...key.permissions]}::text[],
                ${key.expiresAt}, ${whitelist}::text[])
        returning ${columns}`;
      if (row === undefined) throw new Error('insert into api_keys returned no row');
      return toApiKey(row);
    },

    async findByHash(keyHash: string): Promise<KeyWithAccount | null> {
      const [row] = await sql<KeyWithAccountRow[]>`
        select k.id, k.account_id, k.name, k.key_hash, k.permissions, k.created_at, k.expires_at,
               k.is_active, k.ip_whitelist, k.last_used_at,
               a.name as a_name, a.tier as a_tier, a.limits as a_limits,
               a.fee_basis_points as a_fee_basis_points, a.created_at as a_created_at
        from api_keys k join accounts a on a.id = k.account_id
        where k.key_hash = ${keyHash}`;
      if (row === undefined) return null;
      return {
        key: toApiKey(row),
        account: toAccount({
          id: row.account_id,
          name: row.a_name,
          tier: row.a_tier,
          limits: row.a_limits,
          fee_basis_points: row.a_fee_basis_points,
          created_at: row.a_created_at,
        }),
      };
    },

    async listByAccount(accountId: string): Promise<ApiKeyRecord[]> {
      const rows = await sql<ApiKeyRow[]>`
        select ${columns} from api_keys where account_id = ${accountId}
        order by created_at desc, id desc`;
      return rows.map(toApiKey);
    },

    async get(accountId: string, keyId: string): Promise<ApiKeyRecord | null> {
      const [row] = await sql<ApiKeyRow[]>`
        select ${columns} from api_keys where id = ${keyId} and account_id = ${accountId}`;
      return row === undefined ? null : toApiKey(row);
    },

    async setActive(accountId: string, keyId: string, isActive: boolean): Promise<ApiKeyRecord | null> {
      const [row] = await sql<ApiKeyRow[]>`
        update api_keys set is_active = ${isActive}
        where id = ${keyId} and account_id = ${accountId}
        returning ${columns}`;
      return row === undefined ? null : toApiKey(row);
    },

    async delete(accountId: string, keyId: string): Promise<ApiKeyRecord | null> {
      const [row] = await sql<ApiKeyRow[]>`
        delete from api_keys where id = ${keyId} and account_id = ${accountId}
        returning ${columns}`;
      return row === undefined ? null : toApiKey(row);
    },
  };
}
