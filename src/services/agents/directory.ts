/**
 * AgentDirectory: a worker's view of the registered agents, used by the agent routes and by
 * orchestration. It keeps every agent in memory with its AgentActor, a selection catalog index
 * per visibility scope (global, and global + own for each account that has private agents; built
 * lazily, dropped on change), and the actors' latest statistics (the "stats board") that
 * selection and estimates read without asking each actor.
 *
 * Cross-worker consistency: after a store write, `changed(owner, id)` applies the change here and
 * broadcasts it on the `agents.changed` channel, resolving once every worker has reloaded the
 * agent from the store, so a registered agent is selectable at once wherever the next request
 * lands. A periodic full resync repairs a worker that missed a message.
 */
import { microsToUsd } from '../../logic/orchestration/cost.js';
import { ask, AskTargetStopped, AskTimeout, dispatch, stop, type Ref, type ReplyRef } from '../../actors/kit/index.js';
import type { KitLogger } from '../../actors/kit/logger.js';
import type { AgentTuning } from '../../actors/agent-actor.js';
import { AgentRejectionKind, type AgentCall, type AgentCallOutcome, type AgentCalls, type AgentExecuted, type AgentMessage } from '../../actors/agent-protocol.js';
import { CircuitState } from '../../domain/agents.js';
import { type AgentStatsSnapshot } from '../../domain/agents.js';
import type { AgentRegistry } from '../../actors/agent-registry-actor.js';
import {
  buildCatalogIndex,
  previewSelection,
  selectAgents,
  type AgentRuntimeStats,
  type CatalogAgent,
  type CatalogIndex,
  type SelectionPreview,
  type SelectionRequest,
  type SelectionResult,
} from '../../logic/selection/index.js';
import type { SemanticReranker } from '../../logic/selection/semantic-rerank.js';
import type { AgentRecord } from '../../domain/agents.js';
import type { AgentStore } from '../../ports/agents.js';
import type { Coordination } from '../../ports/coordination.js';
import type { AgentClient } from '../../ports/agent-client.js';
import { endAgentSpan, startAgentSpan, traceparentOf } from '../../support/telemetry/index.js';

export const AGENTS_CHANNEL = 'agents.changed';
const ACK_TIMEOUT_MS = 5_000;
const DEFAULT_RESYNC_MS = 60_000;
/** Added to a call's budget for the ask: mailbox time, never the agent's. */
const ASK_SLACK_MS = 5_000;
/**
 * Added too for the wait for a slot, which the actor does not bound: the caller's signal (an
 * execution's overall deadline) and admission control do. This only keeps an ask from hanging.
 */
const ASK_QUEUE_ALLOWANCE_MS = 30 * 60_000;

export interface DirectorySelected {
  readonly agent: AgentRecord;
  readonly confidence: number;
}

export interface DirectorySelection {
  /** Highest confidence first; empty means NO_AGENTS_AVAILABLE. */
  readonly selected: readonly DirectorySelected[];
  readonly criteria: SelectionResult['criteria'];
}

export interface AgentDirectory extends AgentCalls {
  /** The agent an account (null: the operator) sees under `id`, from memory. */
  visible(accountId: string | null, id: string): AgentRecord | undefined;
  /** Selection over the agents the account sees, with this worker's health and statistics. */
  select(accountId: string | null, request: SelectionRequest): DirectorySelection;
  /**
   * Selection for an orchestration: `select`, passed through the semantic reranker when one is
   * configured (BATON_SELECTION_SEMANTIC); its static result when the reranker falls back.
   */
  selectForRequest(accountId: string | null, request: SelectionRequest): Promise<DirectorySelection>;
  /** Like select, with every visible agent's score and the reasons. */
  preview(accountId: string | null, request: SelectionRequest): SelectionPreview;
  /**
   * Runs one call through the agent's actor (concurrency cap, circuit breaker, statistics).
   * Always resolves; an agent the account does not see resolves to a `stopped` rejection.
   */
  execute(accountId: string | null, agentId: string, call: AgentCall): Promise<AgentCallOutcome>;
  /** The latest statistics of an agent the account sees (this worker's view). */
  stats(accountId: string | null, agentId: string): AgentStatsSnapshot | undefined;
  /** After a store write of (owner, id): reload here, then on every worker; resolves when all did. */
  changed(ownerAccountId: string | null, id: string): Promise<void>;
  /** Number of agents known, all scopes. */
  size(): number;
  stop(): Promise<void>;
}

export interface AgentDirectoryOptions {
  readonly store: Pick<AgentStore, 'getOwned' | 'listAll'>;
  readonly coordination: Pick<Coordination, 'subscribe' | 'broadcastAndAwait'>;
  readonly client: Pick<AgentClient, 'execute' | 'executeStreaming' | 'getHealth'>;
  /** The client for agents that speak A2A (a2aCardUrl set); absent: they use `client` too. */
  readonly a2aClientFor?: (record: AgentRecord) => Pick<AgentClient, 'execute' | 'executeStreaming' | 'getHealth'>;
  readonly registry: AgentRegistry;
  readonly logger: KitLogger;
  readonly tuning?: Partial<AgentTuning>;
  readonly random?: () => number;
  /** Told how long each call waited for a slot of its agent (admission control watches it). */
  readonly onQueueWait?: (waitedMs: number) => void;
  /** Full reload from the store this often; 0 turns it off. Default one minute. */
  readonly resyncIntervalMs?: number;
  /** The optional semantic reranker (src/logic/selection/semantic-rerank.ts); absent: off. */
  readonly reranker?: SemanticReranker;
}

interface Entry {
  record: AgentRecord;
  readonly ref: Ref<AgentMessage>;
}

interface Scope {
  readonly index: CatalogIndex;
  /** id → agent key, for the agents this scope sees. */
  readonly keys: ReadonlyMap<string, string>;
  readonly stats: ScopedStats;
}

const GLOBAL_SCOPE = '';

function keyOf(ownerAccountId: string | null, id: string): string {
  return ownerAccountId === null ? `g/${id}` : `a/${ownerAccountId}/${id}`;
}

/** Selection reads stats by agent id; ids are unique only within a scope, the board is keyed wider. */
class ScopedStats implements ReadonlyMap<string, AgentRuntimeStats> {
  constructor(
    private readonly ids: ReadonlyMap<string, string>,
    private readonly board: ReadonlyMap<string, AgentStatsSnapshot>,
  ) {}

  get(id: string): AgentRuntimeStats | undefined {
    const key = this.ids.get(id);
    return key === undefined ? undefined : this.board.get(key);
  }
  has(id: string): boolean {
    return this.get(id) !== undefined;
  }
  get size(): number {
    return this.ids.size;
  }
  forEach(fn: (value: AgentRuntimeStats, key: string, map: ReadonlyMap<string, AgentRuntimeStats>) => void): void {
    for (const [id, value] of this.entries()) fn(value, id, this);
  }
  *entries(): MapIterator<[string, AgentRuntimeStats]> {
    for (const id of this.ids.keys()) {
      const value = this.get(id);
      if (value !== undefined) yield [id, value];
    }
  }
  *keys(): MapIterator<string> {
    for (const [id] of this.entries()) yield id;
  }
  *values(): MapIterator<AgentRuntimeStats> {
    for (const [, value] of this.entries()) yield value;
  }
  [Symbol.iterator](): MapIterator<[string, AgentRuntimeStats]> {
    return this.entries();
  }
}

export function toCatalogAgent(record: AgentRecord): CatalogAgent {
  return {
    id: record.id,
    name: record.name,
    description: record.description,
    vertical: record.vertical,
    capabilities: record.capabilities,
    examples: record.examples,
    pricing: { model: record.pricingModel, basePrice: microsToUsd(record.basePriceMicroUsd) },
  };
}

function sameRecord(a: AgentRecord, b: AgentRecord): boolean {
  return a.updatedAt.getTime() === b.updatedAt.getTime() && a.url === b.url && a.timeoutMs === b.timeoutMs && a.maxConcurrency === b.maxConcurrency;
}

/** Loads every agent, spawns their actors, and subscribes to changes from other workers. */
export async function startAgentDirectory(options: AgentDirectoryOptions): Promise<AgentDirectory> {
  const { store, coordination, client, registry, logger } = options;
  const entries = new Map<string, Entry>();
  /** Agent keys per owner ('' for global). */
  const byOwner = new Map<string, Set<string>>();
  const board = new Map<string, AgentStatsSnapshot>();
  /** Which spawn of an agent key is current, so a stale actor's publish is dropped. */
  const generations = new Map<string, number>();
  const scopes = new Map<string, Scope>();
  let spawned = 0;
  let stopped = false;
  // Applies run one at a time in arrival order, so a slow reload can never overwrite a newer one.
  let chain: Promise<void> = Promise.resolve();

  const ownerKey = (owner: string | null): string => owner ?? GLOBAL_SCOPE;

  const invalidate = (owner: string | null): void => {
    if (owner === null) scopes.clear();
    else scopes.delete(owner);
  };

  const upsert = (record: AgentRecord): void => {
    const key = keyOf(record.ownerAccountId, record.id);
    const existing = entries.get(key);
    if (existing !== undefined) {
      if (sameRecord(existing.record, record)) return;
      existing.record = record;
      dispatch(existing.ref, { type: 'agent.update', agent: record });
      invalidate(record.ownerAccountId);
      return;
    }
    spawned += 1;
    const generation = spawned;
    // Set before spawning: the actor publishes from its init, inside spawnAgent.
    generations.set(key, generation);
    const ref = registry.spawnAgent(`${record.id}-${generation}`, {
      agent: record,
      client: record.a2aCardUrl != null && options.a2aClientFor !== undefined ? options.a2aClientFor(record) : client,
      logger,
      publish: (snapshot) => {
        // A removed (or replaced) agent's actor may publish once more while stopping; ignore it.
        if (generations.get(key) === generation) board.set(key, snapshot);
      },
      ...(options.tuning !== undefined ? { tuning: options.tuning } : {}),
      ...(options.random !== undefined ? { random: options.random } : {}),
      ...(options.onQueueWait !== undefined ? { onQueueWait: options.onQueueWait } : {}),
    });
    entries.set(key, { record, ref });
    let owned = byOwner.get(ownerKey(record.ownerAccountId));
    if (owned === undefined) {
      owned = new Set();
      byOwner.set(ownerKey(record.ownerAccountId), owned);
    }
    owned.add(key);
    invalidate(record.ownerAccountId);
  };

  const remove = (owner: string | null, id: string): void => {
    const key = keyOf(owner, id);
    const existing = entries.get(key);
    if (existing === undefined) return;
    entries.delete(key);
    board.delete(key);
    generations.delete(key);
    byOwner.get(ownerKey(owner))?.delete(key);
    stop(existing.ref);
    invalidate(owner);
  };

  const reload = async (owner: string | null, id: string): Promise<void> => {
    const record = await store.getOwned(owner, id);
    if (stopped) return;
    if (record === null) remove(owner, id);
    else upsert(record);
  };

  const resync = async (): Promise<void> => {
    const all = await store.listAll();
    if (stopped) return;
    const present = new Set<string>();
    for (const record of all) {
      present.add(keyOf(record.ownerAccountId, record.id));
      upsert(record);
    }
    for (const [key, entry] of [...entries]) {
      if (!present.has(key)) remove(entry.record.ownerAccountId, entry.record.id);
    }
  };

  const enqueue = (work: () => Promise<void>): Promise<void> => {
    const next = chain.then(work);
    chain = next.catch((error: unknown) => logger.warn({ err: error }, 'agent directory reload failed; the next resync retries'));
    return next;
  };

  const scopeFor = (accountId: string | null): Scope => {
    // An account without private agents sees exactly the global scope: share its index.
    const own = accountId === null ? undefined : byOwner.get(accountId);
    const name = own === undefined || own.size === 0 ? GLOBAL_SCOPE : (accountId ?? GLOBAL_SCOPE);
    const cached = scopes.get(name);
    if (cached !== undefined) return cached;
    const keys = new Map<string, string>();
    const agents: CatalogAgent[] = [];
    for (const owner of name === GLOBAL_SCOPE ? [GLOBAL_SCOPE] : [GLOBAL_SCOPE, name]) {
      for (const key of byOwner.get(owner) ?? []) {
        const entry = entries.get(key);
        if (entry === undefined) continue;
        keys.set(entry.record.id, key);
        agents.push(toCatalogAgent(entry.record));
      }
    }
    const scope: Scope = { index: buildCatalogIndex(agents), keys, stats: new ScopedStats(keys, board) };
    scopes.set(name, scope);
    return scope;
  };

  const toDirectorySelection = (scope: Scope, result: SelectionResult): DirectorySelection => {
    const selected: DirectorySelected[] = [];
    for (const s of result.selected) {
      const key = scope.keys.get(s.agent.id);
      const entry = key === undefined ? undefined : entries.get(key);
      if (entry !== undefined) selected.push({ agent: entry.record, confidence: s.confidence });
    }
    return { selected, criteria: result.criteria };
  };

  const visibleEntry = (accountId: string | null, id: string): Entry | undefined =>
    (accountId === null ? undefined : entries.get(keyOf(accountId, id))) ?? entries.get(keyOf(null, id));

  await resync();
  // Builds the global index now: the first build also reads the word vectors (about 0.1 s).
  scopeFor(null);
  const unsubscribe = await coordination.subscribe(AGENTS_CHANNEL, (message) => {
    const parsed = parseChange(message);
    if (parsed === null) {
      logger.warn({ channel: AGENTS_CHANNEL }, 'ignored a malformed agent change message');
      return;
    }
    return enqueue(() => reload(parsed.owner, parsed.id));
  });
  const resyncMs = options.resyncIntervalMs ?? DEFAULT_RESYNC_MS;
  const resyncTimer = resyncMs > 0 ? setInterval(() => void enqueue(resync), resyncMs) : undefined;
  resyncTimer?.unref();

  return {
    visible: (accountId, id) => visibleEntry(accountId, id)?.record,

    select(accountId, request) {
      const scope = scopeFor(accountId);
      return toDirectorySelection(scope, selectAgents(scope.index, scope.stats, request));
    },

    async selectForRequest(accountId, request) {
      const scope = scopeFor(accountId);
      if (options.reranker === undefined) return toDirectorySelection(scope, selectAgents(scope.index, scope.stats, request));
      const outcome = await options.reranker.rerank(scope.index, scope.stats, request);
      if (!outcome.reranked && outcome.reason !== 'nothing-to-rerank') {
        options.logger.info({ reason: outcome.reason, ms: Math.round(outcome.ms) }, 'semantic reranker fell back to the static selection');
      }
      return toDirectorySelection(scope, outcome.result);
    },

    preview(accountId, request) {
      const scope = scopeFor(accountId);
      return previewSelection(scope.index, scope.stats, request);
    },

    async execute(accountId, agentId, call) {
      const entry = visibleEntry(accountId, agentId);
      const started = performance.now();
      if (entry === undefined) {
        return { ok: false, kind: AgentRejectionKind.STOPPED, message: `Agent '${agentId}' is not registered`, durationMs: 0, rejected: true };
      }
      const budgetMs = Math.min(entry.record.timeoutMs, call.timeoutMs ?? Number.POSITIVE_INFINITY);
      // One `invoke_agent` span per call (queue wait and refusals included); the agent gets its traceparent.
      const span = startAgentSpan(entry.record, call.traceparent);
      const traced: AgentCall = span === null ? call : { ...call, traceparent: traceparentOf(span) };
      try {
        const reply = await ask(
          entry.ref,
          (replyTo: ReplyRef<AgentExecuted>) => ({ type: 'agent.execute', call: traced, replyTo }),
          budgetMs + ASK_SLACK_MS + ASK_QUEUE_ALLOWANCE_MS,
        );
        endAgentSpan(span, reply.outcome);
        return reply.outcome;
      } catch (error) {
        endAgentSpan(span, { ok: false, kind: AgentRejectionKind.STOPPED, message: String(error) });
        if (!(error instanceof AskTimeout) && !(error instanceof AskTargetStopped)) throw error;
        logger.warn({ agent: agentId, err: error }, 'agent actor did not answer an execute');
        return {
          ok: false,
          kind: AgentRejectionKind.STOPPED,
          message: `Agent '${agentId}' is unavailable on this worker`,
          durationMs: performance.now() - started,
          rejected: true,
        };
      }
    },

    stats(accountId, agentId) {
      const entry = visibleEntry(accountId, agentId);
      if (entry === undefined) return undefined;
      return board.get(keyOf(entry.record.ownerAccountId, entry.record.id)) ?? initialStats(entry.record);
    },

    async changed(ownerAccountId, id) {
      await enqueue(() => reload(ownerAccountId, id));
      const message = JSON.stringify({ owner: ownerAccountId, id });
      const { delivered, acknowledged } = await coordination.broadcastAndAwait(AGENTS_CHANNEL, message, ACK_TIMEOUT_MS);
      if (acknowledged < delivered) {
        // A wedged worker catches up at its next resync.
        logger.warn({ delivered, acknowledged, agent: id }, 'agent change not acknowledged by every worker');
      }
    },

    size: () => entries.size,

    async stop() {
      stopped = true;
      if (resyncTimer !== undefined) clearInterval(resyncTimer);
      await unsubscribe();
      await chain;
      for (const entry of entries.values()) stop(entry.ref);
      entries.clear();
      board.clear();
      generations.clear();
      scopes.clear();
    },
  };
}

function initialStats(record: AgentRecord): AgentStatsSnapshot {
  return {
    agentId: record.id,
    ownerAccountId: record.ownerAccountId,
    healthy: true,
    circuit: CircuitState.CLOSED,
    circuitOpen: false,
    successRate: 1,
    latencyMs: null,
    consecutiveFailures: 0,
    inFlight: 0,
    queued: 0,
    calls: 0,
    failures: 0,
    lastHealthCheckAtMs: null,
    lastHealthError: null,
  };
}

function parseChange(message: string): { owner: string | null; id: string } | null {
  try {
    const value = JSON.parse(message) as unknown;
    if (typeof value !== 'object' || value === null) return null;
    const { owner, id } = value as Record<string, unknown>;
    if (typeof id !== 'string' || (owner !== null && typeof owner !== 'string')) return null;
    return { owner, id };
  } catch {
    return null;
  }
}
