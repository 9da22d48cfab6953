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
  /** Example requests the agent handles, for selection (0–20, each 1–500 characters). */
  readonly examples: readonly string[];
  /** Calls one worker sends this agent at once (1–1000); more wait in a FIFO queue. */
  readonly maxConcurrency: number;
  /**
   * Set for an agent that speaks A2A (docs/a2a.md): the agent card it was registered by, fetched
   * for health; `url` is then the card's JSON-RPC endpoint. Absent or null: Baton's own protocol.
   */
  readonly a2aCardUrl?: string | null;
  readonly createdAt: Date;
  readonly updatedAt: Date;
}

export type NewAgent = Omit<AgentRecord, 'createdAt' | 'updatedAt'>;

/** Fields PATCH may change; absent means unchanged. */
export type AgentPatch = Partial<Omit<NewAgent, 'id' | 'ownerAccountId' | 'a2aCardUrl'>>;

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

export type WebhookDeliveryStatus = 'pending' | 'delivering' | 'delivered' | 'failed';

/** A webhook delivery to enqueue: body and fixed headers already built and signed. */
export interface NewWebhookDelivery {
  readonly id: string; // dlv_…
  readonly executionId: string;
  readonly accountId: string;
  readonly url: string;
  readonly event: string;
  readonly body: string;
  readonly headers: Readonly<Record<string, string>>;
  /** Needed per attempt for the Standard Webhooks signature; erased when the delivery finishes. */
  readonly signingSecret: string | null;
  readonly maxAttempts: number;
  /** First attempt due (normally now). */
  readonly nextAttemptAt: Date;
}

export interface WebhookDelivery {
  readonly id: string;
  readonly executionId: string;
  readonly accountId: string;
  readonly url: string;
  readonly event: string;
  /** Position among the execution's deliveries, from 1. */
  readonly sequence: number;
  readonly body: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly signingSecret: string | null;
  readonly status: WebhookDeliveryStatus;
  /** Attempts started (a claim counts one). */
  readonly attempts: number;
  readonly maxAttempts: number;
  readonly nextAttemptAt: Date;
  readonly lastStatusCode: number | null;
  readonly lastError: string | null;
  readonly lastAttemptAt: Date | null;
  readonly createdAt: Date;
  readonly deliveredAt: Date | null;
}

/** How one attempt went, for the delivery log. */
export interface WebhookAttemptRecord {
  /** The attempt number the claim returned (`attempts`); a record for an older attempt is ignored. */
  readonly attempt: number;
  readonly at: Date;
  readonly statusCode: number | null;
  readonly error: string | null;
}

/**
 * The webhook outbox (DESIGN §11). Deliveries of one execution go out in `sequence` order: a row
 * is not claimed while an earlier row of its execution is pending or delivering.
 */
export interface WebhookStore {
  /** Adds a delivery after the execution's others; if this execution already has this event, returns that one. */
  enqueue(delivery: NewWebhookDelivery): Promise<WebhookDelivery>;
  /**
   * Claims up to `limit` due deliveries (and ones whose claim lapsed) for one attempt each:
   * marks them delivering until `now + leaseMs` and counts the attempt. Safe across workers:
   * a row is claimed by one of them only.
   */
  claimDue(now: Date, limit: number, leaseMs: number): Promise<WebhookDelivery[]>;
  /** Each returns false when the attempt is no longer the current one (its claim lapsed and was retaken). */
  markDelivered(id: string, record: WebhookAttemptRecord): Promise<boolean>;
  scheduleRetry(id: string, record: WebhookAttemptRecord, nextAttemptAt: Date): Promise<boolean>;
  markFailed(id: string, record: WebhookAttemptRecord): Promise<boolean>;
  /** An execution's deliveries in sequence order; another account's execution has none. */
  listByExecution(accountId: string, executionId: string): Promise<WebhookDelivery[]>;
  /** Earliest next attempt among unfinished deliveries, for the poller's next wake-up; null if none. */
  nextDueAt(): Promise<Date | null>;
}

export interface DurableStores {
  readonly accounts: AccountStore;
  readonly apiKeys: ApiKeyStore;
  readonly usage: UsageStore;
  readonly webhooks: WebhookStore;
  readonly agents: AgentStore;
  readonly executions: ExecutionStore;
  readonly idempotency: IdempotencyStore;
  readonly workflows: WorkflowStore;
  readonly workflowRuns: WorkflowRunStore;
  readonly approvals: ApprovalStore;
  /** Round trip to the database, for readiness checks. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

/** Request-rate limits of one account (spec §8): fixed windows, per UTC minute and per UTC day. */
export interface RateLimits {
  readonly perMinute: number;
  readonly perDay: number;
}

/** One fixed window's state after a check. */
export interface RateWindow {
  readonly limit: number;
  /** Requests still admitted in this window (after this one, when it was admitted). */
  readonly remaining: number;
  /** When the window ends (epoch milliseconds). */
  readonly resetAtMs: number;
}

/**
 * The outcome of one rate-limit check. The top-level `limit`/`resetAtMs` are the per-minute
 * window's (what X-RateLimit-* carry); `remaining` is the smaller of both windows' remainders,
 * so a client is never told it has requests left that the daily window would refuse.
 */
export interface RateLimitDecision {
  readonly allowed: boolean;
  readonly limit: number;
  readonly remaining: number;
  readonly resetAtMs: number;
  /** 0 when allowed; otherwise whole seconds until the refusing window ends (at least 1). */
  readonly retryAfterSeconds: number;
  /** Refused: the window that refused (the day when both did). Allowed: the one with fewer requests left. */
  readonly window: 'minute' | 'day';
  readonly minute: RateWindow;
  readonly day: RateWindow;
}

/** Concurrency limits of one account (spec §8): slots running at once, and places in its queue. */
export interface ConcurrencyLimits {
  readonly concurrent: number;
  readonly queueSize: number;
}

/**
 * The outcome of taking a concurrency slot. `promoted`: holders of the same account moved from
 * the queue into slots by this call (slots whose lease had expired were reclaimed), which the
 * caller must start; in FIFO order.
 */
export type SlotAcquisition =
  | { readonly status: 'started'; readonly promoted: readonly string[] }
  /** `position`: 1 for the head of the queue. */
  | { readonly status: 'queued'; readonly position: number; readonly promoted: readonly string[] }
  | { readonly status: 'full'; readonly promoted: readonly string[] };

/** Where a holder stands: in a slot whose lease is live or expired, in the queue, or nowhere. */
export type SlotState = 'running' | 'expired' | 'queued' | 'none';

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
   * False while this worker's subscription connection is down: broadcasts sent meanwhile do not
   * reach it, so caches that rely on them (API keys) must not be trusted.
   */
  subscriptionHealthy(): boolean;
  /** Called each time the subscription comes back after a gap in which messages may have been missed. */
  onSubscriptionRestored(listener: () => void): void;
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
  /**
   * Counts one request of `accountId` against both windows containing `nowMs`, atomically and
   * in one round trip: admitted only when both windows have room, and then counted in both;
   * a refused request is not counted. Shared by every worker and node on the same Redis.
   */
  rateLimit(accountId: string, limits: RateLimits, nowMs: number): Promise<RateLimitDecision>;
  /**
   * Concurrency slots and a FIFO queue per account (DESIGN §10), atomically and in one round
   * trip each: slots whose lease ended by `nowMs` are reclaimed and queued holders promoted into
   * free slots first; then `holderId` gets a slot (lease until `nowMs + leaseMs`) when one is
   * free and nobody waits, else a queue place, else nothing ('full'). Asking again for a holder
   * that already has a slot or a place returns it (a slot's lease is renewed).
   */
  acquireSlot(accountId: string, holderId: string, limits: ConcurrencyLimits, leaseMs: number, nowMs: number): Promise<SlotAcquisition>;
  /**
   * Frees the holder's slot or queue place (a no-op when it has neither), reclaims expired slots
   * and promotes queued holders into free slots, FIFO, with a lease of `leaseMs`; returns them,
   * for the caller to start. Uses the concurrent limit of the account's latest acquire.
   */
  releaseSlot(accountId: string, holderId: string, leaseMs: number, nowMs: number): Promise<string[]>;
  /** Extends the leases of holders whose slot is still live; returns those that no longer have one. */
  renewSlots(accountId: string, holderIds: readonly string[], leaseMs: number, nowMs: number): Promise<string[]>;
  slotState(accountId: string, holderId: string, nowMs: number): Promise<SlotState>;
  /**
   * Appends one event to a stream (a Redis Stream with a 24 h expiry, bounded to the most recent
   * `EVENT_STREAM_MAX_LEN` events) and gives it the stream's next sequence number, atomically, so
   * writers on any worker never share a number. `floorSeq`: the sequence continues after it if the
   * stream's counter was lost (in-process streams after a restart); 0 when unknown.
   */
  appendEvent(stream: string, type: string, data: string, floorSeq?: number): Promise<StreamEvent>;
  /** Events with a sequence above `afterSeq`, oldest first, at most `limit`. */
  readEvents(stream: string, afterSeq: number, limit: number): Promise<StreamEvent[]>;
  /**
   * Delivers every event after `afterSeq` to `listener`, existing ones first and then live ones,
   * in sequence order, each once, until the returned function is called. Works on any worker or
   * node whatever worker appended.
   */
  followEvents(stream: string, afterSeq: number, listener: (event: StreamEvent) => void): Promise<() => Promise<void>>;
  ping(): Promise<void>;
  close(): Promise<void>;
}

/** A selected agent as recorded on an execution (prices in micro-USD). */
export interface ExecutionAgent {
  readonly id: string;
  readonly name: string;
  readonly vertical: string;
  readonly confidence: number;
  readonly estimatedCostMicros: number;
}

export interface ExecutionWebhook {
  readonly url: string;
  readonly events: readonly string[];
  /** The receiver's shared secret; kept until the execution's events are signed. */
  readonly secret: string | null;
}

export type ExecutionStatusName = 'PENDING' | 'RUNNING' | 'COMPLETED' | 'FAILED' | 'CANCELLED';

/** One orchestration execution, as stored. Money in micro-USD, times in ms / ISO strings. */
/**
 * Where a running execution is: `currentAgent` is the first agent in flight (null between steps),
 * `runningAgents` every agent in flight (several in PARALLEL and DAG modes; absent in records
 * written before it existed).
 */
export interface ExecutionProgress {
  readonly completed: number;
  readonly total: number;
  readonly currentAgent: string | null;
  readonly runningAgents?: readonly string[];
}

export interface ExecutionRecord {
  readonly id: string;
  readonly accountId: string;
  readonly status: ExecutionStatusName;
  readonly query: string;
  readonly context: Readonly<Record<string, unknown>>;
  readonly mode: 'PARALLEL' | 'SEQUENTIAL' | 'DAG';
  readonly aggregation: 'merge' | 'best' | 'vote' | 'custom';
  readonly customAggregator: string | null;
  readonly dependencies: Readonly<Record<string, readonly string[]>> | null;
  readonly selectedAgents: readonly ExecutionAgent[];
  readonly timeoutMs: number | null;
  readonly maxCostMicros: number | null;
  /** The account's fee terms when the execution was accepted; actual cost uses these. */
  readonly fees: { readonly tier: Tier; readonly feeBasisPoints: number | null };
  readonly webhook: ExecutionWebhook | null;
  readonly estimatedCostMicros: number;
  readonly estimatedDurationMs: number;
  readonly progress: ExecutionProgress | null;
  readonly result: { readonly summary: string; readonly details: Readonly<Record<string, unknown>> } | null;
  readonly error: { readonly code: string; readonly message: string } | null;
  readonly actualCostMicros: number | null;
  readonly actualDurationMs: number | null;
  readonly agentsUsed: number | null;
  readonly createdAt: string;
  readonly startedAt: string | null;
  readonly completedAt: string | null;
}

/** Fields a transition may set, besides the status. */
export type ExecutionPatch = Partial<
  Pick<
    ExecutionRecord,
    'progress' | 'result' | 'error' | 'actualCostMicros' | 'actualDurationMs' | 'agentsUsed' | 'startedAt' | 'completedAt'
  >
>;

/** A page of a list read newest first: `after` is the opaque `nextCursor` of the previous page. */
export interface NewestFirstQuery<Status extends string> {
  readonly status: Status | null;
  readonly limit: number;
  readonly after: string | null;
}

export interface NewestFirstPage<T> {
  readonly items: readonly T[];
  /** Pass as `after` for the next (older) page; null on the last page. */
  readonly nextCursor: string | null;
}

/** A list read was given a cursor it did not issue. */
export class InvalidListCursor extends RangeError {
  constructor() {
    super('cursor is not one this service issued');
    this.name = 'InvalidListCursor';
  }
}

export interface ExecutionStore {
  /**
   * Durably records a new execution; concurrent calls are committed together (group commit).
   * With an idempotency key the key is recorded on the same row: resolves null once recorded, or
   * with the execution that already holds the key (nothing recorded then).
   */
  insert(record: ExecutionRecord, idempotencyKey?: string | null): Promise<ExecutionRecord | null>;
  /** The account's execution recorded with this idempotency key, if any. */
  getByIdempotencyKey(accountId: string, key: string): Promise<ExecutionRecord | null>;
  /** The execution if it belongs to the account; null otherwise (no cross-account leaks). */
  get(accountId: string, id: string): Promise<ExecutionRecord | null>;
  /** Any account's execution, for the runtime (owner actors, recovery). */
  getById(id: string): Promise<ExecutionRecord | null>;
  /**
   * Moves an execution to `status` only if it is currently in one of `from`; returns the updated
   * record, or null when it was not (another transition won, e.g. a cancel against a completion).
   */
  transition(id: string, from: readonly ExecutionStatusName[], status: ExecutionStatusName, patch: ExecutionPatch): Promise<ExecutionRecord | null>;
  /** Updates progress of a RUNNING execution (best effort; batched). */
  updateProgress(id: string, progress: NonNullable<ExecutionRecord['progress']>): Promise<void>;
  /** Ids of executions still PENDING or RUNNING (for recovery). */
  listLive(limit: number): Promise<Array<{ readonly id: string; readonly status: ExecutionStatusName; readonly updatedAt: Date }>>;
  /** The account's executions, newest first (throws InvalidListCursor for a foreign cursor). */
  listByAccount(accountId: string, query: NewestFirstQuery<ExecutionStatusName>): Promise<NewestFirstPage<ExecutionRecord>>;
}

export type IdempotencyClaim =
  | { readonly kind: 'claimed' }
  | { readonly kind: 'done'; readonly status: number; readonly body: unknown }
  | { readonly kind: 'in_progress' }
  | { readonly kind: 'mismatch' };

export interface IdempotencyStore {
  /**
   * Claims (accountId, key) for a request with this body hash, or reports what holds it. A claim
   * lapses `ttlMs` after it was taken unless completed, so a claimer that died frees the key.
   */
  claim(accountId: string, key: string, requestHash: string, ttlMs: number): Promise<IdempotencyClaim>;
  /** Stores the response of a claimed key, kept `ttlMs` from now. */
  complete(accountId: string, key: string, status: number, body: unknown, ttlMs: number): Promise<void>;
  /** Releases a claim whose request failed in a way a retry may fix (5xx). */
  release(accountId: string, key: string): Promise<void>;
}

/** One event of an event stream (workflow SSE events). `data` is already serialized JSON. */
export interface StreamEvent {
  /** 1, 2, 3… per stream, assigned by `appendEvent`. */
  readonly seq: number;
  readonly type: string;
  readonly data: string;
}

/** Most events one stream keeps; older ones are trimmed (documented in docs/workflows.md). */
export const EVENT_STREAM_MAX_LEN = 10_000;
/** Streams expire this long after their last append. */
export const EVENT_STREAM_TTL_MS = 24 * 3_600_000;

/** A tool a workflow step may call (DESIGN §8). */
export interface WorkflowTool {
  readonly name: string;
  readonly description?: string;
  readonly url: string;
  readonly inputSchema?: Readonly<Record<string, unknown>>;
  readonly risk: 'low' | 'high';
  /** Per-call budget; default 30000. */
  readonly timeoutMs?: number;
}

export type McpToolRisk = 'low' | 'medium' | 'high';

/** An MCP server (Streamable HTTP) whose tools a step offers its agent (docs/workflows.md). */
export interface WorkflowMcpServer {
  /** Prefix of its tools' names as the agent sees them: `<name>__<tool>`. */
  readonly name: string;
  readonly url: string;
  /** Sent with every request to the server (an API key, say). */
  readonly headers?: Readonly<Record<string, string>>;
  /** Budget of one list or call; default 30000. */
  readonly timeoutMs?: number;
  /** Only these tools are offered; absent: every tool the server lists. */
  readonly allow?: readonly string[];
  /** Per-tool settings that win over the tool's annotations. */
  readonly tools?: Readonly<Record<string, { readonly risk?: McpToolRisk }>>;
}

export interface WorkflowStep {
  readonly id: string;
  /** An agent id visible to the workflow's account (a global agent for a global workflow). */
  readonly agent: string;
  readonly tools?: readonly WorkflowTool[];
  readonly mcpServers?: readonly WorkflowMcpServer[];
}

/** A workflow definition as submitted (DESIGN §8); defaults are applied where it is run. */
export interface WorkflowDefinition {
  readonly slug: string;
  readonly name: string;
  readonly description?: string;
  readonly steps: readonly WorkflowStep[];
  readonly approvalTimeoutMs?: number;
  readonly onApprovalTimeout?: 'reject' | 'fail';
  readonly maxSteps?: number;
}

/** A stored definition. `accountId` null: global (registered with the operator token). */
export interface WorkflowRecord {
  readonly accountId: string | null;
  readonly definition: WorkflowDefinition;
  readonly createdAt: Date;
  readonly updatedAt: Date;
}

export interface WorkflowStore {
  /** Inserts unless this owner already has the slug. */
  create(accountId: string | null, definition: WorkflowDefinition): Promise<WorkflowRecord | null>;
  /** The definition of exactly this owner (null: global). */
  getOwned(accountId: string | null, slug: string): Promise<WorkflowRecord | null>;
  /** What an account sees under a slug: its own first, then a global one. */
  getVisible(accountId: string, slug: string): Promise<WorkflowRecord | null>;
  /** Every definition an account sees (its own shadow global ones of the same slug), by slug. */
  listVisible(accountId: string | null): Promise<WorkflowRecord[]>;
  update(accountId: string | null, definition: WorkflowDefinition): Promise<WorkflowRecord | null>;
  delete(accountId: string | null, slug: string): Promise<boolean>;
}

export type WorkflowRunStatus = 'running' | 'completed' | 'failed' | 'cancelled';

/** One entry of `toolResults` as the agent receives it. */
export type ToolResultEntry =
  | { readonly id: string; readonly name: string; readonly result: unknown }
  | { readonly id: string; readonly name: string; readonly error: string };

export interface ToolCall {
  readonly id: string;
  readonly name: string;
  readonly input: Readonly<Record<string, unknown>>;
}

/** One agent round of a step, as given back to the agent in `history`. */
export interface HistoryEntry {
  readonly stepId: string;
  readonly toolCalls: readonly ToolCall[];
  readonly toolResults: readonly ToolResultEntry[];
}

/**
 * Where a paused run stands, enough to go on after a restart or on another worker: it is
 * written when the run pauses on an approval (the only point a run is resumed from).
 */
/** One tool an MCP server listed for a run's step, as the run offers it. */
export interface ListedMcpTool {
  /** The name the agent sees: `<server>__<tool>`. */
  readonly name: string;
  readonly server: string;
  /** The tool's own name on the server. */
  readonly tool: string;
  readonly description: string;
  readonly inputSchema: Readonly<Record<string, unknown>>;
  readonly risk: McpToolRisk;
}

/** What listing a step's MCP servers gave: their tools, and the servers that could not be listed. */
export interface McpToolset {
  readonly tools: readonly ListedMcpTool[];
  readonly unavailable: ReadonlyArray<{ readonly server: string; readonly error: string }>;
}

export interface RunCheckpoint {
  readonly stepIndex: number;
  /** Agent rounds used so far (maxSteps counts these). */
  readonly rounds: number;
  readonly previousAnswer: string | null;
  readonly history: readonly HistoryEntry[];
  /** Results collected so far in the current round. */
  readonly toolResults: readonly ToolResultEntry[];
  /** Tool calls of the round still to run; the first waits for `approvalId`. */
  readonly pendingCalls: readonly ToolCall[];
  /** Every tool call of the current round (recorded in `history` once the round is over). */
  readonly roundCalls: readonly ToolCall[];
  readonly approvalId: string;
  /** The MCP tools listed for the current step, so a resumed run does not list them again. */
  readonly mcpToolset?: McpToolset;
  /** Last event sequence number the run appended (so a lost in-process stream continues after it). */
  readonly lastSeq: number;
}

export interface WorkflowRunRecord {
  readonly id: string; // exec_…
  readonly accountId: string;
  readonly status: WorkflowRunStatus;
  /** The definition as it was when the run started; later edits do not change a running run. */
  readonly workflow: WorkflowDefinition;
  readonly task: string;
  readonly metadata: Readonly<Record<string, unknown>>;
  readonly conversationId: string | null;
  readonly finalAnswer: string | null;
  readonly error: { readonly code: string; readonly message: string } | null;
  readonly checkpoint: RunCheckpoint | null;
  readonly createdAt: string;
  readonly completedAt: string | null;
}

export type WorkflowRunPatch = Partial<Pick<WorkflowRunRecord, 'finalAnswer' | 'error' | 'checkpoint' | 'completedAt'>>;

/**
 * Workflow runs. A run has an owner (a worker instance) holding a lease; the owner renews it, and
 * a worker that finds a running run with a lapsed lease takes it over (DESIGN §9).
 */
export interface WorkflowRunStore {
  insert(record: WorkflowRunRecord, owner: string, leaseMs: number): Promise<void>;
  get(accountId: string, id: string): Promise<WorkflowRunRecord | null>;
  getById(id: string): Promise<WorkflowRunRecord | null>;
  /** Conditional status change (null when the run was not in one of `from`). */
  transition(id: string, from: readonly WorkflowRunStatus[], status: WorkflowRunStatus, patch: WorkflowRunPatch): Promise<WorkflowRunRecord | null>;
  /** Sets (or clears) the checkpoint of a running run. */
  saveCheckpoint(id: string, checkpoint: RunCheckpoint | null): Promise<void>;
  /** Extends the lease of every running run of `owner`. */
  renewLeases(owner: string, leaseMs: number): Promise<void>;
  /** Lets other workers take `owner`'s runs paused on an approval at once (graceful hand-over). */
  releasePaused(owner: string): Promise<void>;
  /**
   * Takes over running runs whose lease lapsed (`all`: every running run not owned by `owner`,
   * for embedded mode, where no other worker can exist) and returns them.
   */
  claim(owner: string, leaseMs: number, limit: number, all: boolean): Promise<WorkflowRunRecord[]>;
  /** The account's runs, newest first (throws InvalidListCursor for a foreign cursor). */
  listByAccount(accountId: string, query: NewestFirstQuery<WorkflowRunStatus>): Promise<NewestFirstPage<WorkflowRunRecord>>;
}

export type ApprovalStatus = 'pending' | 'approved' | 'rejected' | 'expired' | 'cancelled';

export interface ApprovalRecord {
  readonly id: string; // apr_…
  readonly executionId: string;
  readonly accountId: string;
  readonly workflowSlug: string;
  readonly toolCall: ToolCall;
  readonly status: ApprovalStatus;
  readonly reason: string | null;
  readonly requestedAt: Date;
  readonly expiresAt: Date;
  readonly decidedAt: Date | null;
}

export interface ApprovalStore {
  create(record: Omit<ApprovalRecord, 'status' | 'reason' | 'decidedAt'>): Promise<ApprovalRecord>;
  /** The approval if it belongs to the account (another account's is null). */
  get(accountId: string, id: string): Promise<ApprovalRecord | null>;
  getById(id: string): Promise<ApprovalRecord | null>;
  /** pending → `status`, atomically; null when it was no longer pending (someone decided first). */
  decide(id: string, status: Exclude<ApprovalStatus, 'pending'>, reason: string | null, at: Date): Promise<ApprovalRecord | null>;
  /** An account's approvals with this status, oldest first. */
  list(accountId: string, status: ApprovalStatus, limit: number): Promise<ApprovalRecord[]>;
  /** Marks the run's pending approvals cancelled (the run ended without them). */
  cancelPending(executionId: string, at: Date): Promise<number>;
}
