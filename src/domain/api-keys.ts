/** API keys as stored (hash only) and as authenticated (with their account). */
import { type Account } from './accounts.js';
import { type UsageEntry } from './usage.js';

export interface ApiKeyRecord {
  readonly id: string; // key_…
  readonly accountId: string;
  readonly name: string;
  /** Hex HMAC-SHA256 of the key value; the value itself is never stored. */
  readonly keyHash: string;
  readonly permissions: readonly string[];
  readonly createdAt: Date;
  readonly expiresAt: Date | null;
  readonly isActive: boolean;
  readonly ipWhitelist: readonly string[] | null;
  readonly lastUsedAt: Date | null;
}
export interface NewApiKey {
  readonly id: string;
  readonly accountId: string;
  readonly name: string;
  readonly keyHash: string;
  readonly permissions: readonly string[];
  readonly expiresAt: Date | null;
  readonly ipWhitelist: readonly string[] | null;
}
/** What authentication needs in one lookup: the key and its account. */
export interface KeyWithAccount {
  readonly key: ApiKeyRecord;
  readonly account: Account;
}
export interface KeyActivity {
  readonly keyId: string;
  readonly lastUsedAt: Date | null;
  readonly usageStats: { readonly last24h: number; readonly last7d: number; readonly last30d: number };
  readonly recentRequests: readonly UsageEntry[];
}
