/**
 * Store ports: what the rest of the service may ask of durable state (Postgres) and of shared
 * coordination state (Redis). Adapters live beside this file; nothing outside `src/stores/`
 * imports an adapter directly except the wiring in `src/stores/open.ts`.
 */

export const Tier = {
  DEVELOPER: 'DEVELOPER',
  BUSINESS: 'BUSINESS',
  ENTERPRISE: 'ENTERPRISE',
} as const;
export type Tier = (typeof Tier)[keyof typeof Tier];

/** Custom limits; only ENTERPRISE accounts carry them (other tiers use the tier table). */
export interface AccountLimits {
  readonly requestsPerMinute: number;
  readonly requestsPerDay: number;
  readonly concurrentExecutions: number;
  readonly queueSize: number;
}

export interface Account {
  readonly id: string; // acct_…
  readonly name: string;
  readonly tier: Tier;
  readonly limits: AccountLimits | null;
  /** Platform fee in basis points (1% = 100); null means the tier default. */
  readonly feeBasisPoints: number | null;
  readonly createdAt: Date;
}

export interface NewAccount {
  readonly id: string;
  readonly name: string;
  readonly tier: Tier;
  readonly limits: AccountLimits | null;
  readonly feeBasisPoints: number | null;
}

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

export interface AccountStore {
  create(account: NewAccount): Promise<Account>;
  get(id: string): Promise<Account | null>;
}

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

/** One authenticated request, as recorded for `/v1/api-keys/{id}/activity`. */
export interface UsageEntry {
  readonly keyId: string;
  readonly at: Date;
  readonly endpoint: string;
  readonly method: string;
  readonly statusCode: number;
  readonly ipAddress: string;
}

export interface KeyActivity {
  readonly keyId: string;
  readonly lastUsedAt: Date | null;
  readonly usageStats: { readonly last24h: number; readonly last7d: number; readonly last30d: number };
  readonly recentRequests: readonly UsageEntry[];
}

export interface UsageStore {
  /** Writes many entries in one round trip: hourly counters, lastUsedAt, the recent-requests log. */
  recordBatch(entries: readonly UsageEntry[]): Promise<void>;
  /** Activity of one key as of `now`; `recentLimit` most recent requests, newest first. */
  activity(keyId: string, now: Date, recentLimit: number): Promise<KeyActivity>;
  /** Deletes request-log rows beyond what `activity` can show; returns rows removed. */
  prune(now: Date): Promise<number>;
}

/**
 * A registered agent (spec §2.2, DESIGN §7). `ownerAccountId` null: global (registered with the
 * operator token, visible to every account); otherwise private to that account.
 */
export interface AgentRecord {
  readonly id: string;
  readonly ownerAccountId: string | null;
  readonly name: string;
  readonly description: string;
  readonly url: string;
  readonly vertical: string;
  readonly capabilities: readonly string[];
  readonly pricingModel: string;
  /** basePrice in integer micro-USD (1 USD = 1,000,000). */
  readonly basePriceMicroUsd: number;
  /** The agent's call budget, sent as metadata.timeout (1000–300000). */
  readonly timeoutMs: number;
  readonly createdAt: Date;
  readonly updatedAt: Date;
}

export type NewAgent = Omit<AgentRecord, 'createdAt' | 'updatedAt'>;

/** Fields PATCH may change; absent means unchanged. */
export type AgentPatch = Partial<Omit<NewAgent, 'id' | 'ownerAccountId'>>;

export interface AgentListQuery {
  /** Case-insensitive exact match. */
  readonly vertical?: string;
  /** Case-insensitive: agents having this capability. */
  readonly capability?: string;
  readonly limit: number;
  /** Opaque position from a previous page (`nextCursor`); absent: from the start. */
  readonly after?: string;
}

export interface AgentPage {
  readonly agents: readonly AgentRecord[];
  /** Pass as `after` for the next page; null on the last page. */
  readonly nextCursor: string | null;
}

/** Why a registration was refused as a duplicate (so the 409 can say which scope holds the id). */
export type AgentConflict = 'same_scope' | 'global' | 'account';

/** `listVisible` was given a cursor it did not issue. */
export class InvalidAgentCursor extends RangeError {
  constructor() {
    super('cursor is not one this service issued');
    this.name = 'InvalidAgentCursor';
  }
}

export interface AgentStore {
  /**
   * Inserts atomically unless the id is taken in what some account would see: in the same scope,
   * by a global agent (for an account's agent) or by any account's agent (for a global one).
   */
  create(agent: NewAgent): Promise<{ readonly created: AgentRecord } | { readonly conflict: AgentConflict }>;
  /** The agent an account (null: the operator) sees under this id: its own first, then global. */
  getVisible(accountId: string | null, id: string): Promise<AgentRecord | null>;
  /** The agent of exactly this owner (null: global), or null. */
  getOwned(ownerAccountId: string | null, id: string): Promise<AgentRecord | null>;
  /** Agents visible to an account (null: global only), in registration order, one page. */
  listVisible(accountId: string | null, query: AgentListQuery): Promise<AgentPage>;
  /** Every agent of every scope, for a worker's in-memory directory. */
  listAll(): Promise<AgentRecord[]>;
  update(ownerAccountId: string | null, id: string, patch: AgentPatch): Promise<AgentRecord | null>;
  delete(ownerAccountId: string | null, id: string): Promise<AgentRecord | null>;
}

export interface DurableStores {
  readonly accounts: AccountStore;
  readonly apiKeys: ApiKeyStore;
  readonly usage: UsageStore;
  readonly agents: AgentStore;
  /** Round trip to the database, for readiness checks. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

/**
 * Shared coordination state (Redis, or in-process in embedded mode). Later features add
 * script-level operations (rate limits, queues, leases, event streams) here, one method each,
 * each implemented by a Lua script in the Redis adapter and by plain code in the memory adapter.
 */
export interface Coordination {
  /** Publishes to every subscriber on every worker and node; resolves to the receiver count. */
  publish(channel: string, message: string): Promise<number>;
  /** Subscribes; the returned function unsubscribes. Handlers never throw into the adapter. */
  subscribe(channel: string, handler: (message: string) => void | Promise<void>): Promise<() => Promise<void>>;
  /**
   * Publishes and waits until every receiving subscriber's handler has finished (each
   * acknowledges), or `timeoutMs` passes. Used where "at once on every worker" must hold,
   * such as key revocation. Resolves to how many received and how many acknowledged.
   */
  broadcastAndAwait(
    channel: string,
    message: string,
    timeoutMs: number,
  ): Promise<{ readonly delivered: number; readonly acknowledged: number }>;
  ping(): Promise<void>;
  close(): Promise<void>;
}
