/** Port: durable API keys (hashes), looked up by hash on every request. */
import { type ApiKeyRecord, type KeyWithAccount, type NewApiKey } from '../domain/api-keys.js';

export interface ApiKeyStore {
  create(key: NewApiKey): Promise<ApiKeyRecord>;
  /** Lookup by hash, for authentication. Deleted keys are gone; deactivated keys are returned. */
  findByHash(keyHash: string): Promise<KeyWithAccount | null>;
  /** Keys of one account, newest first. */
  listByAccount(accountId: string): Promise<ApiKeyRecord[]>;
  /** A key of this account, or null (another account's key is null too). */
  get(accountId: string, keyId: string): Promise<ApiKeyRecord | null>;
  /** Returns the updated key, or null when the account has no such key. */
  setActive(accountId: string, keyId: string, isActive: boolean): Promise<ApiKeyRecord | null>;
  /** Removes the key permanently; returns what was removed, or null. */
  delete(accountId: string, keyId: string): Promise<ApiKeyRecord | null>;
}
