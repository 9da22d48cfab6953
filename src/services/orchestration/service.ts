/**
 * The orchestration API behind the routes: submit (validate, select, estimate, take a
 * concurrency slot or queue place, record durably, start or leave queued), read status, cancel.
 * Executions run in this worker's ExecutionsSupervisor; a cancel may arrive at any worker and is
 * broadcast to the owner, which records it before answering. A queued execution has no owner:
 * the cancel closes it here and gives up its queue place.
 */
import { createHash } from 'node:crypto';
import type { ExecutionsMessage } from '../../actors/execution-protocol.js';
import { ask, dispatch, type Ref } from '../../actors/kit/index.js';
import type { AgentDirectory } from '../agents/directory.js';
import type { KeyPrincipal } from '../auth/principal.js';
import {
  ApiError,
  ErrorStatus,
  budgetExceeded,
  executionNotCancellable,
  executionNotFound,
  idempotencyInProgress,
  idempotencyKeyReused,
  invalidRequest,
  internalError,
  noAgentsAvailable,
  queueFull,
  type ErrorCode,
} from '../../domain/errors.js';
import { newId } from '../../domain/ids.js';
import { concurrencyLimitsFor, queueRetryAfterSeconds } from '../limits/concurrency.js';
import type { SseSink } from '../../ports/event-sink.js';
import type { Concurrency, PromotionStarter } from '../../ports/limits.js';
import type { Admission } from '../limits/admission.js';
import type { Logger } from '../../support/log.js';
import type { Metrics } from '../../support/metrics/index.js';
import { checkUrlSyntax } from '../../domain/url-policy.js';
import type { OrchestrateBody } from '../../schemas/orchestrate.js';
import { SELECTION_DEFAULTS } from '../../logic/selection/types.js';
import type { Coordination } from '../../ports/coordination.js';
import { isTerminalExecution, type ExecutionRecord, type ExecutionStatusName } from '../../domain/executions.js';
import type { ExecutionStore } from '../../ports/executions.js';
import type { IdempotencyStore } from '../../ports/idempotency.js';
import type { NewestFirstQuery } from '../../ports/list-query.js';
import { exceedsDepth } from '../../schemas/validation.js';
import { estimateCost, estimateExceedsBudget, microsToUsd, usdToMicros, type FeeSchedule } from '../../logic/orchestration/cost.js';
import { dagError, planDag, type DagPlan } from '../../logic/orchestration/dag.js';
import { estimateDurationMs } from '../../logic/orchestration/duration.js';
import { isCancellable } from '../../logic/orchestration/outcome.js';
import type { StatusWatch } from './status-watch.js';
import { creationView, statusView } from './views.js';
import { currentTraceparent } from '../../support/telemetry/index.js';

export const CANCEL_CHANNEL = 'executions.cancel';
const IDEMPOTENCY_TTL_MS = 24 * 3_600_000;
/**
 * How long an unanswered claim holds its key: a worker killed between claiming and answering
 * frees the key after this (the default lease), not after 24 h.
 */
export const IDEMPOTENCY_CLAIM_MS = 30_000;
/** How long a duplicate waits for the first request before 409 IDEMPOTENCY_IN_PROGRESS. */
const IDEMPOTENCY_WAIT_MS = 5_000;
const IDEMPOTENCY_POLL_MS = 100;
const CANCEL_ACK_TIMEOUT_MS = 5_000;
const LOCAL_ASK_TIMEOUT_MS = 4_000;
const MAX_CONTEXT_DEPTH = 10;
const ALL_EVENTS = ['execution.started', 'execution.completed', 'execution.failed', 'execution.cancelled'] as const;

/** The answer to a submission: the execution accepted (202), with its queue place when it waits for a slot. */
export type ExecutionCreatedView = ReturnType<typeof creationView>;
export type ExecutionStatusView = ReturnType<typeof statusView>;
export interface ExecutionListView {
  readonly executions: ExecutionStatusView[];
  readonly nextCursor: string | null;
}

export interface OrchestrationDeps {
  readonly directory: Pick<AgentDirectory, 'select' | 'selectForRequest' | 'stats' | 'visible'>;
  readonly executions: Pick<ExecutionStore, 'insert' | 'get' | 'getById' | 'transition' | 'getByIdempotencyKey' | 'listByAccount'>;
  readonly idempotency: IdempotencyStore;
  readonly coordination: Pick<Coordination, 'subscribe' | 'broadcastAndAwait'>;
  readonly supervisor: Ref<ExecutionsMessage>;
  /** Concurrency slots and queue per account (docs/limits.md). */
  readonly concurrency: Pick<Concurrency, 'acquire' | 'release' | 'addStarter'>;
  /** Wakes long polls and event streams when an execution changes; absent: waits run to their end. */
  readonly statusWatch?: Pick<StatusWatch, 'watch'>;
  /** Admission control (src/services/limits/admission.ts); absent: every submission is admitted. */
  readonly admission?: Pick<Admission, 'enter' | 'started'>;
  readonly metrics?: Pick<Metrics, 'queueRejected'>;
  readonly publicUrl: string;
  readonly allowPrivateUrls: boolean;
  readonly logger: Logger;
  /** Told of every execution closed outside its actor (cancel of an orphan), for webhooks. */
  readonly onClosedExternally?: (record: ExecutionRecord) => void;
  /** A submission was queued rather than started here: it may run on any worker. */
  readonly onQueued?: (executionId: string) => void;
}

/**
 * Answers are the API views (the routes answer 202 for a submission, else 200); failures are
 * catalogue errors, a refusal replayed for an idempotency key included.
 */
export interface OrchestrationService {
  submit(principal: KeyPrincipal, body: OrchestrateBody, idempotencyKey: string | null): Promise<ExecutionCreatedView>;
  /**
   * The status read; with `waitMs` > 0 a long poll: answers as soon as the execution is terminal,
   * or with its current status once `waitMs` has passed (or `signal` aborts).
   */
  status(accountId: string, id: string, waitMs?: number, signal?: AbortSignal): Promise<ExecutionStatusView>;
  /** The execution's status events as SSE (404 as the status read); the stream ends when it is terminal. */
  openEvents(accountId: string, id: string): Promise<(sink: SseSink) => void>;
  /** The account's executions, newest first, as status views (GET /v1/executions). */
  list(accountId: string, query: NewestFirstQuery<ExecutionStatusName>): Promise<ExecutionListView>;
  cancel(accountId: string, id: string): Promise<ExecutionStatusView>;
  stop(): Promise<void>;
}

export function feeSchedule(principal: KeyPrincipal): FeeSchedule {
  return { tier: principal.account.tier, feeBasisPoints: principal.account.feeBasisPoints };
}

export async function startOrchestration(deps: OrchestrationDeps): Promise<OrchestrationService> {
  const unsubscribe = await deps.coordination.subscribe(CANCEL_CHANNEL, async (executionId) => {
    try {
      await ask(deps.supervisor, (replyTo) => ({ type: 'executions.cancel', executionId, replyTo }), LOCAL_ASK_TIMEOUT_MS);
    } catch (error) {
      deps.logger.warn({ err: error, executionId }, 'cancel not delivered to the local execution actor');
    }
  });

  // Queued executions promoted into a slot on this worker start here.
  deps.concurrency.addStarter(executionStarter(deps));

  async function create(principal: KeyPrincipal, body: OrchestrateBody, idempotencyKey: string | null): Promise<ExecutionCreatedView> {
    const record = await plan(deps, principal, body);
    const accountId = record.accountId;
    const limits = concurrencyLimitsFor(principal.account);
    // The place is taken before anything is recorded, atomically, so a refused request leaves
    // nothing behind and two racing submits cannot both take the last place.
    const place = await deps.concurrency.acquire(accountId, record.id, { limits, onRequest: true });
    if (place.status === 'full') {
      deps.metrics?.queueRejected(principal.account.tier);
      throw queueFull(limits.concurrent, limits.queueSize, queueRetryAfterSeconds(record.estimatedDurationMs, limits.concurrent));
    }
    let existing: ExecutionRecord | null;
    try {
      existing = await deps.executions.insert(record, idempotencyKey);
    } catch (error) {
      deps.concurrency.release(accountId, record.id);
      throw error;
    }
    if (existing !== null) {
      // The key's first request recorded an execution (its worker died before answering, or is
      // slower than the claim): nothing new was recorded, and the answer is that execution.
      deps.concurrency.release(accountId, record.id);
      return creationView(existing, deps.publicUrl);
    }
    const view = creationView(record, deps.publicUrl);
    if (place.status === 'started') {
      deps.admission?.started(record.id);
      dispatch(deps.supervisor, { type: 'executions.start', record, traceparent: currentTraceparent() });
      return view;
    }
    // It starts wherever a slot frees (maybe another worker): its reads go to the store.
    deps.onQueued?.(record.id);
    const message = `${view.message}; queued at position ${place.position}: the account runs at most ${limits.concurrent} executions at once, and this one starts when a slot frees`;
    return { ...view, message };
  }

  return {
    async submit(principal, body, idempotencyKey) {
      checkRequest(deps, body);
      // Before the idempotency claim and the slot: a refused submission leaves nothing behind.
      const leave = deps.admission?.enter();
      try {
        if (idempotencyKey === null) return await create(principal, body, null);
        const accountId = principal.account.id;
        return await idempotent(
          deps.idempotency,
          accountId,
          idempotencyKey,
          body,
          () => create(principal, body, idempotencyKey),
          async () => {
            const existing = await deps.executions.getByIdempotencyKey(accountId, idempotencyKey);
            return existing === null ? null : creationView(existing, deps.publicUrl);
          },
        );
      } finally {
        leave?.();
      }
    },

    async status(accountId, id, waitMs = 0, signal) {
      if (waitMs <= 0 || deps.statusWatch === undefined) {
        const record = await deps.executions.get(accountId, id);
        if (record === null) throw executionNotFound(id);
        return statusView(record);
      }
      // Watch before reading, so a transition between the read and the wait is not missed.
      let wake: () => void = () => undefined;
      const woken = new Promise<void>((resolve) => (wake = resolve));
      const unwatch = deps.statusWatch.watch(id, (status) => {
        if (status === null || isTerminalExecution(status)) wake();
      });
      const timer = setTimeout(wake, waitMs);
      signal?.addEventListener('abort', wake, { once: true });
      try {
        const record = await deps.executions.get(accountId, id);
        if (record === null) throw executionNotFound(id);
        if (isTerminalExecution(record.status)) return statusView(record);
        await woken;
        const after = await deps.executions.get(accountId, id);
        if (after === null) throw executionNotFound(id);
        return statusView(after);
      } finally {
        clearTimeout(timer);
        unwatch();
        signal?.removeEventListener('abort', wake);
      }
    },

    async openEvents(accountId, id) {
      const record = await deps.executions.get(accountId, id);
      if (record === null) throw executionNotFound(id);
      const watch = deps.statusWatch;
      return (sink) => streamStatus(sink, record, watch, () => deps.executions.get(accountId, id), deps.logger);
    },

    async list(accountId, query) {
      const page = await deps.executions.listByAccount(accountId, query);
      return { executions: page.items.map(statusView), nextCursor: page.nextCursor };
    },

    async cancel(accountId, id) {
      const record = await deps.executions.get(accountId, id);
      if (record === null) throw executionNotFound(id);
      if (!isCancellable(record.status)) throw executionNotCancellable(id, record.status);
      // The owner (on whichever worker or node) aborts its calls and records CANCELLED before it acknowledges.
      await deps.coordination.broadcastAndAwait(CANCEL_CHANNEL, id, CANCEL_ACK_TIMEOUT_MS);
      let after = await deps.executions.get(accountId, id);
      if (after !== null && isCancellable(after.status)) {
        // No live owner took it (its node died, or it had not started): close it here.
        const closed = await deps.executions.transition(id, ['PENDING', 'RUNNING'], 'CANCELLED', { completedAt: new Date().toISOString() });
        if (closed !== null) {
          deps.onClosedExternally?.(closed);
          // Its queue place (or an orphan's slot) goes to the next execution.
          deps.concurrency.release(accountId, id);
        }
        after = closed ?? (await deps.executions.get(accountId, id));
      }
      if (after === null) throw executionNotFound(id);
      if (after.status !== 'CANCELLED') throw executionNotCancellable(id, after.status);
      return statusView(after);
    },

    stop: unsubscribe,
  };
}

const EVENTS_HEARTBEAT_MS = 15_000;

/** SSE event name of each status: the webhook event names, and `execution.pending` while queued. */
function eventName(status: ExecutionRecord['status']): string {
  return `execution.${status.toLowerCase()}`;
}

/**
 * Feeds one execution's status events to `sink`: the current status first, then each change
 * (with the status view as data, as GET /v1/executions/{id} answers), ending after the terminal one.
 */
function streamStatus(
  sink: SseSink,
  opened: ExecutionRecord,
  watch: Pick<StatusWatch, 'watch'> | undefined,
  read: () => Promise<ExecutionRecord | null>,
  logger: Logger,
): void {
  let last: string | null = null;
  let reading = false;
  let again = false;
  const send = (record: ExecutionRecord): void => {
    const view = statusView(record);
    const data = JSON.stringify(view);
    // Progress changes are not status events; only a new status (or the first) is sent.
    if (record.status !== last) {
      last = record.status;
      sink.send({ event: eventName(record.status), data });
    }
    if (isTerminalExecution(record.status)) sink.end();
  };
  // One read at a time; a change during a read triggers one more read after it.
  const refresh = (): void => {
    if (reading) {
      again = true;
      return;
    }
    reading = true;
    read().then(
      (record) => {
        reading = false;
        if (sink.closed) return;
        if (record === null) sink.end();
        else send(record);
        if (again && !sink.closed) {
          again = false;
          refresh();
        }
      },
      (error: unknown) => {
        reading = false;
        logger.warn({ err: error, executionId: opened.id }, 'execution event stream read failed; ending it');
        sink.end();
      },
    );
  };
  if (watch === undefined || isTerminalExecution(opened.status)) {
    send(opened);
    if (!isTerminalExecution(opened.status)) sink.end();
    return;
  }
  const unwatch = watch.watch(opened.id, (status) => (status === null ? sink.end() : refresh()));
  const heartbeat = setInterval(() => sink.comment('ping'), EVENTS_HEARTBEAT_MS);
  sink.onClose(() => {
    clearInterval(heartbeat);
    unwatch();
  });
  // Watching before this read: a change between the first read and the watch is not missed.
  send(opened);
  refresh();
}

/**
 * Starts a PENDING execution promoted into a slot on this worker; one already closed (cancelled
 * while queued) is 'finished', so its slot goes on to the next.
 */
function executionStarter(deps: OrchestrationDeps): PromotionStarter {
  return {
    async start(_accountId, holderId) {
      const record = await deps.executions.getById(holderId);
      if (record === null) return 'unknown';
      if (record.status === 'PENDING') {
        deps.admission?.started(record.id);
        dispatch(deps.supervisor, { type: 'executions.start', record });
        return 'started';
      }
      // RUNNING: a recovery scan elsewhere restarted it, and its owner renews the slot.
      return record.status === 'RUNNING' ? 'started' : 'finished';
    },
  };
}

/** Checks what the schema cannot: depth, cross-field rules, the webhook URL. */
function checkRequest(deps: OrchestrationDeps, body: OrchestrateBody): void {
  if (body.context !== undefined && exceedsDepth(body.context, MAX_CONTEXT_DEPTH)) {
    throw invalidRequest('context', `context may nest at most ${MAX_CONTEXT_DEPTH} levels deep`);
  }
  const mode = body.mode ?? 'PARALLEL';
  if (body.dependencies !== undefined && mode !== 'DAG') {
    throw invalidRequest('dependencies', "dependencies apply only to mode 'DAG'");
  }
  const strategy = body.aggregationStrategy ?? 'merge';
  if (strategy === 'custom' && body.customAggregator === undefined) {
    throw invalidRequest('customAggregator', "aggregationStrategy 'custom' needs customAggregator: the id of the agent that combines the outputs");
  }
  if (strategy !== 'custom' && body.customAggregator !== undefined) {
    throw invalidRequest('customAggregator', "customAggregator applies only to aggregationStrategy 'custom'");
  }
  if (body.webhook !== undefined) {
    const check = checkUrlSyntax(body.webhook.url, { allowPrivate: deps.allowPrivateUrls });
    if (!check.ok) throw invalidRequest('webhook.url', `webhook.url is not allowed: ${check.message}`);
  }
}

function suggestionFor(body: OrchestrateBody): string {
  const criteria = body.selectionCriteria ?? {};
  if (criteria.requiredCapabilities !== undefined && criteria.requiredCapabilities.length > 0) {
    return 'Remove some requiredCapabilities, or register an agent that has them all (GET /v1/agents lists what exists)';
  }
  if (criteria.verticals !== undefined && criteria.verticals.length > 0) {
    return 'Widen or drop selectionCriteria.verticals (GET /v1/agents lists the verticals in use)';
  }
  return 'Lower selectionCriteria.minConfidence, rephrase the query with the words of an agent description, or preview scores with POST /v1/agents/selection-preview';
}

/** Selection, estimates and the record to store; throws the 4xx a client should see. */
async function plan(deps: OrchestrationDeps, principal: KeyPrincipal, body: OrchestrateBody): Promise<ExecutionRecord> {
  const accountId = principal.account.id;
  const mode = body.mode ?? 'PARALLEL';
  const aggregation = body.aggregationStrategy ?? 'merge';
  if (body.customAggregator !== undefined && deps.directory.visible(accountId, body.customAggregator) === undefined) {
    throw invalidRequest('customAggregator', `No agent '${body.customAggregator}' is registered for this account`);
  }
  const selection = await deps.directory.selectForRequest(accountId, {
    query: body.query,
    ...(body.context === undefined ? {} : { context: body.context }),
    ...(body.selectionCriteria === undefined ? {} : { selectionCriteria: body.selectionCriteria }),
  });
  if (selection.selected.length === 0) {
    const criteria = { ...SELECTION_DEFAULTS, ...(body.selectionCriteria ?? {}) };
    throw noAgentsAvailable(criteria, suggestionFor(body));
  }
  const agentIds = selection.selected.map((s) => s.agent.id);
  let dag: DagPlan | undefined;
  if (mode === 'DAG') {
    const check = planDag(agentIds, body.dependencies ?? {});
    if (!check.ok) throw dagError(check);
    dag = check.plan;
  }
  const fees = feeSchedule(principal);
  const estimate = estimateCost(
    selection.selected.map((s) => ({ agentId: s.agent.id, basePriceMicros: s.agent.basePriceMicroUsd })),
    fees,
  );
  const maxCostMicros = body.maxCost === undefined ? null : usdToMicros(body.maxCost);
  if (estimateExceedsBudget(estimate, maxCostMicros)) throw budgetExceeded(microsToUsd(estimate.totalMicros), body.maxCost ?? 0);
  const latencies = agentIds.map((agentId) => ({ agentId, latencyMs: deps.directory.stats(accountId, agentId)?.latencyMs ?? undefined }));
  const estimatedDurationMs = estimateDurationMs(mode, latencies, dag === undefined ? {} : { plan: dag });
  return {
    id: newId('exec_'),
    accountId,
    status: 'PENDING',
    query: body.query,
    context: body.context ?? {},
    mode,
    aggregation,
    customAggregator: body.customAggregator ?? null,
    dependencies: body.dependencies ?? null,
    selectedAgents: selection.selected.map((s) => ({
      id: s.agent.id,
      name: s.agent.name,
      vertical: s.agent.vertical,
      confidence: s.confidence,
      estimatedCostMicros: s.agent.basePriceMicroUsd,
    })),
    timeoutMs: body.timeoutMs ?? null,
    maxCostMicros,
    fees,
    webhook:
      body.webhook === undefined ? null : { url: body.webhook.url, events: body.webhook.events ?? [...ALL_EVENTS], secret: body.webhook.secret ?? null },
    estimatedCostMicros: estimate.totalMicros,
    estimatedDurationMs,
    progress: null,
    result: null,
    error: null,
    actualCostMicros: null,
    actualDurationMs: null,
    agentsUsed: null,
    createdAt: new Date().toISOString(),
    startedAt: null,
    completedAt: null,
  };
}

/** Stable hash of a request body: key order does not matter. */
function requestHash(body: unknown): string {
  return createHash('sha256').update(stableJson(body)).digest('hex');
}

function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.keys(value as Record<string, unknown>)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${stableJson((value as Record<string, unknown>)[k])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value);
}

/** The status a submission's answer is stored with (the route answers it with the same). */
const ACCEPTED = 202;

/**
 * The answer stored for an idempotency key: the accepted execution's view, or the refusal it
 * got, thrown again as the catalogue error it was (the pipeline answers it with the same status
 * and body). A code this version's catalogue lacks (stored by another version) cannot be
 * answered as it was: it becomes an internal error.
 */
function storedAnswer(status: number, body: unknown): ExecutionCreatedView {
  if (status === ACCEPTED) return body as ExecutionCreatedView;
  const { error: code, message, ...extra } = body as { error: ErrorCode; message: string };
  if (!Object.hasOwn(ErrorStatus, code) || ErrorStatus[code] !== status) throw internalError();
  throw new ApiError(code, message, extra);
}

/**
 * Runs `work` once per (account, key) within 24 h: a retry gets the stored answer (errors a retry
 * cannot fix included), another body is refused. While the first request is unanswered a
 * duplicate gets the execution it recorded (`recorded`) as soon as there is one, or waits for it;
 * a claim whose worker died lapses after IDEMPOTENCY_CLAIM_MS and the next retry takes it over.
 */
async function idempotent(
  store: IdempotencyStore,
  accountId: string,
  key: string,
  body: unknown,
  work: () => Promise<ExecutionCreatedView>,
  recorded: () => Promise<ExecutionCreatedView | null>,
): Promise<ExecutionCreatedView> {
  const hash = requestHash(body);
  const deadline = Date.now() + IDEMPOTENCY_WAIT_MS;
  for (;;) {
    const claim = await store.claim(accountId, key, hash, IDEMPOTENCY_CLAIM_MS);
    if (claim.kind === 'mismatch') throw idempotencyKeyReused(key);
    if (claim.kind === 'done') return storedAnswer(claim.status, claim.body);
    if (claim.kind === 'claimed') break;
    const answer = await recorded();
    if (answer !== null) return answer;
    if (Date.now() >= deadline) throw idempotencyInProgress(key);
    await new Promise((resolve) => setTimeout(resolve, IDEMPOTENCY_POLL_MS));
  }
  try {
    const result = await work();
    await store.complete(accountId, key, ACCEPTED, result, IDEMPOTENCY_TTL_MS);
    return result;
  } catch (error) {
    // A full queue (429) is worth retrying with the same key: it is not the request's answer.
    if (error instanceof ApiError && error.status < 500 && error.status !== 429) {
      const stored = { error: error.code, message: error.message, ...error.extra };
      await store.complete(accountId, key, error.status, stored, IDEMPOTENCY_TTL_MS);
    } else {
      await store.release(accountId, key).catch(() => undefined);
    }
    throw error;
  }
}
