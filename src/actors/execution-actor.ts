/**
 * ExecutionActor: one per orchestration execution, the state machine of DESIGN §7.
 * PENDING → RUNNING (persisted, `execution.started`), then agent calls through the AgentCalls port
 * per mode (PARALLEL all at once; SEQUENTIAL each given the previous output in
 * `context.previous`; DAG each node when its inputs are ready, given them in `context.inputs`),
 * then its AggregatorActor, then COMPLETED or FAILED (persisted, webhook). A cancel aborts the
 * in-flight calls and records CANCELLED. Every terminal write is conditional, so whichever of
 * finish and cancel comes first wins and the other changes nothing. An overall deadline timer
 * bounds the run even if an agent call never answers.
 */
import type { AgentCalls } from './agent-protocol.js';
import { actualCost, budgetReached, canAffordNext, usdToMicros, type AgentCharge } from '../logic/orchestration/cost.js';
import { dependencyFailedError, nextSteps, planDagOrThrow, type DagPlan } from '../logic/orchestration/dag.js';
import { judgeRun } from '../logic/orchestration/outcome.js';
import { agentCallErrorCode, RunErrorCode } from '../domain/errors.js';
import type { AgentRunResult, AggregatedResult, ExecutionError } from '../domain/orchestration.js';
import type { ExecutionPatch, ExecutionRecord } from '../domain/executions.js';
import type { ExecutionStore } from '../ports/executions.js';
import type { AgentCallOutcome } from './agent-protocol.js';
import { aggregatorActor } from './aggregator-actor.js';
import { isPermanentStoreError } from '../ports/store-errors.js';
import type { CancelReply, ExecutionMessage } from './execution-protocol.js';
import { defineActor, dispatch, reply, retryWithin, spawnActor, type ActorKit, type KitLogger } from './kit/index.js';
import { endRunSpan, traceparentOf, type Span } from '../support/telemetry/index.js';

/** What an execution tells the outside world about its transitions (webhooks, metrics). */
export interface ExecutionEvents {
  transitioned(record: ExecutionRecord): void;
  /**
   * A transition recorded earlier whose webhook may have died with its worker (recovery sends
   * `execution.started` again before `execution.failed`); the outbox skips it if it was enqueued.
   * Metrics are not counted again.
   */
  replayed?(record: ExecutionRecord): void;
}

export interface ExecutionDeps {
  readonly directory: AgentCalls;
  readonly executions: Pick<ExecutionStore, 'transition' | 'updateProgress' | 'getById'>;
  readonly events: ExecutionEvents;
  readonly logger: KitLogger;
  /** Added to the sum of agent timeouts for the overall deadline. */
  readonly deadlineSlackMs?: number;
  /**
   * Called once the actor has stopped, whatever the reason. `settled`: the execution is over
   * (this actor closed it, or found it closed), so its concurrency slot may go to the next one;
   * false when the actor stopped without that (worker shutdown, or another owner runs it).
   */
  readonly onStopped?: (executionId: string, settled: boolean) => void;
  /**
   * How long a failed store write (a transition) is retried before the actor gives up and
   * faults; the owner's lease (BATON_LEASE_MS), past which another worker may recover it.
   */
  readonly storeRetryMs?: number;
}

const DEFAULT_DEADLINE_SLACK_MS = 5_000;
const DEFAULT_STORE_RETRY_MS = 30_000;

/**
 * A store call of this execution, retried with backoff while the store fails (an outage, a
 * deadlock victim) so an answer already received is written late rather than lost.
 */
function persist<T>(deps: ExecutionDeps, kit: ActorKit<ExecutionMessage>, executionId: string, what: string, work: () => Promise<T>): Promise<T> {
  return retryWithin(work, {
    withinMs: deps.storeRetryMs ?? DEFAULT_STORE_RETRY_MS,
    clock: kit.clock,
    isPermanent: isPermanentStoreError,
    onRetry: (error, attempt, delayMs) => deps.logger.warn({ err: error, executionId, attempt, delayMs }, `${what} failed; retrying`),
  });
}
const MAX_DEADLINE_MS = 30 * 60_000;

type Phase = 'pending' | 'running' | 'aggregating' | 'done';

interface State {
  record: ExecutionRecord;
  phase: Phase;
  readonly abort: AbortController;
  readonly startedMs: number;
  /** Results in the order agents finished (blocked DAG nodes included). */
  readonly results: AgentRunResult[];
  readonly charges: AgentCharge[];
  readonly inFlight: Set<string>;
  readonly started: Set<string>;
  stoppedBy: ExecutionError | null;
  readonly plan: DagPlan | null;
  settled: boolean;
  /** The run's trace span (started by the supervisor); null while tracing is off. */
  readonly span: Span | null;
}

function agentTimeoutMs(record: ExecutionRecord): number {
  return record.timeoutMs ?? 300_000;
}

export function executionActor(deps: ExecutionDeps, initial: ExecutionRecord, span: Span | null = null) {
  return defineActor<State, ExecutionMessage>({
    init: () => ({
      record: initial,
      phase: 'pending',
      abort: new AbortController(),
      startedMs: Date.now(),
      results: [],
      charges: [],
      inFlight: new Set(),
      started: new Set(),
      stoppedBy: null,
      plan: initial.mode === 'DAG' ? planDagOrThrow(initial.selectedAgents.map((a) => a.id), initial.dependencies ?? {}) : null,
      settled: false,
      span,
    }),
    handle: async (state, msg, kit) => {
      switch (msg.type) {
        case 'execution.run':
          return start(state, deps, kit);
        case 'execution.agentDone':
          return agentDone(state, deps, kit, msg.agentId, msg.outcome);
        case 'execution.aggregated':
          return finish(state, deps, kit, msg);
        case 'execution.cancel':
          return cancel(state, deps, kit, msg.replyTo);
        case 'execution.deadline':
          state.stoppedBy = { code: RunErrorCode.EXECUTION_TIMEOUT, message: 'The execution did not finish before its overall deadline' };
          state.abort.abort();
          return settleIfIdle(state, deps, kit, true);
      }
    },
    afterStop: (state) => {
      endRunSpan(state.span, state.record.id, state.record.status, state.record.error);
      state.abort.abort();
      deps.onStopped?.(state.record.id, state.settled);
    },
  });
}

async function start(state: State, deps: ExecutionDeps, kit: ActorKit<ExecutionMessage>): Promise<State> {
  if (state.phase !== 'pending') return state;
  const startedAt = new Date().toISOString();
  const total = state.record.selectedAgents.length;
  const planned = firstSteps(state);
  const running = await persist(deps, kit, state.record.id, 'recording the start', () =>
    deps.executions.transition(state.record.id, ['PENDING'], 'RUNNING', {
      startedAt,
      progress: progressOf(state, planned),
    }),
  );
  if (running === null) {
    // Cancelled (or otherwise closed) before it could start, or started by another worker (two
    // recovery scans raced): only in the first case is its slot free to go.
    const current = await persist(deps, kit, state.record.id, 'reading the execution', () => deps.executions.getById(state.record.id));
    state.settled = current === null || (current.status !== 'PENDING' && current.status !== 'RUNNING');
    state.phase = 'done';
    kit.stopSelf();
    return state;
  }
  state.record = running;
  state.phase = 'running';
  deps.events.transitioned(running);
  const timeouts = state.record.mode === 'PARALLEL' ? agentTimeoutMs(state.record) : agentTimeoutMs(state.record) * total;
  const deadline = Math.min(timeouts + agentTimeoutMs(state.record) + (deps.deadlineSlackMs ?? DEFAULT_DEADLINE_SLACK_MS), MAX_DEADLINE_MS);
  kit.timers.start('deadline', deadline, (timer) => ({ type: 'execution.deadline', timer }));
  launchReady(state, deps, kit);
  // The RUNNING write named the steps expected to start; should launching have started others
  // (a step over maxCost is not started), the stored progress says so.
  const inFlight = [...state.inFlight];
  if (inFlight.length !== planned.length || inFlight.some((id, i) => id !== planned[i])) writeProgress(state, deps);
  return settleIfIdle(state, deps, kit, false);
}

/** The agents that start first: all in PARALLEL, the first in SEQUENTIAL, the roots in DAG. */
function firstSteps(state: State): string[] {
  const ids = state.record.selectedAgents.map((a) => a.id);
  if (state.record.mode === 'PARALLEL') return ids;
  if (state.record.mode === 'SEQUENTIAL') return ids.slice(0, 1);
  return nextSteps(state.plan!, { started: new Set(), completed: new Set(), failed: new Set() }).ready.slice();
}

/** Progress as clients read it: `currentAgent` the first in flight, `runningAgents` all of them. */
function progressOf(state: State, running: readonly string[]) {
  return { completed: state.results.length, total: state.record.selectedAgents.length, currentAgent: running[0] ?? null, runningAgents: [...running] };
}

function writeProgress(state: State, deps: ExecutionDeps): void {
  void deps.executions
    .updateProgress(state.record.id, progressOf(state, [...state.inFlight]))
    .catch((error: unknown) => deps.logger.warn({ err: error, executionId: state.record.id }, 'progress update failed'));
}

/** Starts whatever the mode allows now. */
function launchReady(state: State, deps: ExecutionDeps, kit: ActorKit<ExecutionMessage>): void {
  const agents = state.record.selectedAgents;
  const mode = state.record.mode;
  if (mode === 'PARALLEL') {
    for (const agent of agents) {
      if (!state.started.has(agent.id)) call(state, deps, kit, agent.id, state.record.context);
    }
    return;
  }
  if (mode === 'SEQUENTIAL') {
    if (state.inFlight.size > 0) return;
    const next = agents.find((a) => !state.started.has(a.id));
    if (next === undefined) return;
    if (!affordable(state, deps, next.id)) return;
    const previous = state.results.at(-1);
    const context = previous !== undefined && previous.ok ? { ...state.record.context, previous: previous.output } : state.record.context;
    call(state, deps, kit, next.id, context);
    return;
  }
  const plan = state.plan!;
  const completed = new Set(state.results.filter((r) => r.ok).map((r) => r.agentId));
  const failed = new Set(state.results.filter((r) => !r.ok).map((r) => r.agentId));
  const steps = nextSteps(plan, { started: state.started, completed, failed });
  for (const blocked of steps.blocked) {
    if (state.started.has(blocked.agentId)) continue;
    state.started.add(blocked.agentId);
    state.results.push({ agentId: blocked.agentId, ok: false, error: dependencyFailedError(blocked), confidence: confidenceOf(state, blocked.agentId) });
  }
  for (const agentId of steps.ready) {
    if (!affordable(state, deps, agentId)) return;
    const inputs = Object.fromEntries(
      (plan.dependsOn.get(agentId) ?? []).flatMap((dep) => {
        const result = state.results.find((r) => r.agentId === dep);
        return result !== undefined && result.ok ? [[dep, result.output] as const] : [];
      }),
    );
    call(state, deps, kit, agentId, { ...state.record.context, inputs });
  }
}

function confidenceOf(state: State, agentId: string): number {
  return state.record.selectedAgents.find((a) => a.id === agentId)?.confidence ?? 0;
}

function spentMicros(state: State): number {
  return actualCost(state.charges, { tier: 'ENTERPRISE', feeBasisPoints: 0 }).agentsMicros;
}

/** maxCost: a step that would go over the cap is not started; the run stops there. */
function affordable(state: State, deps: ExecutionDeps, agentId: string): boolean {
  const price = state.record.selectedAgents.find((a) => a.id === agentId)?.estimatedCostMicros ?? 0;
  if (canAffordNext(spentMicros(state), price, state.record.fees, state.record.maxCostMicros)) return true;
  state.stoppedBy = budgetError(state);
  return false;
}

function budgetError(state: State): ExecutionError {
  return {
    code: RunErrorCode.BUDGET_REACHED,
    message: `maxCost of ${(state.record.maxCostMicros ?? 0) / 1e6} USD reached; no further agents were started`,
  };
}

function call(state: State, deps: ExecutionDeps, kit: ActorKit<ExecutionMessage>, agentId: string, context: Readonly<Record<string, unknown>>): void {
  state.started.add(agentId);
  state.inFlight.add(agentId);
  const self = kit.self;
  void deps.directory
    .execute(state.record.accountId, agentId, {
      prompt: state.record.query,
      context,
      requestId: state.record.id,
      userId: state.record.accountId,
      ...(state.record.timeoutMs === null ? {} : { timeoutMs: state.record.timeoutMs }),
      signal: state.abort.signal,
      traceparent: traceparentOf(state.span),
    })
    .then(
      (outcome) => dispatch(self, { type: 'execution.agentDone', agentId, outcome }),
      (error: unknown) =>
        dispatch(self, {
          type: 'execution.agentDone',
          agentId,
          outcome: { ok: false, kind: 'aborted', message: `call failed: ${String(error)}`, durationMs: 0 },
        }),
    );
}

function toRunResult(state: State, agentId: string, outcome: AgentCallOutcome): AgentRunResult {
  const confidence = confidenceOf(state, agentId);
  if (outcome.ok) return { agentId, ok: true, output: outcome.result, confidence };
  return { agentId, ok: false, error: { code: agentCallErrorCode(outcome.kind), message: outcome.message }, confidence };
}

function chargeOf(state: State, agentId: string, outcome: AgentCallOutcome): AgentCharge | null {
  // A refusal by the actor (circuit open, queue full) sent nothing to the agent: nothing is owed.
  if (!outcome.ok && 'rejected' in outcome) return null;
  const basePriceMicros = state.record.selectedAgents.find((a) => a.id === agentId)?.estimatedCostMicros ?? 0;
  // A success without a reported cost (metadata.cost null) is charged its base price by chargeMicros.
  const reported = outcome.ok ? outcome.metadata.cost : 'cost' in outcome && typeof outcome.cost === 'number' ? outcome.cost : null;
  return { agentId, succeeded: outcome.ok, reportedMicros: reported === null ? null : usdToMicros(reported), basePriceMicros };
}

async function agentDone(
  state: State,
  deps: ExecutionDeps,
  kit: ActorKit<ExecutionMessage>,
  agentId: string,
  outcome: AgentCallOutcome,
): Promise<State> {
  if (!state.inFlight.delete(agentId)) return state;
  const charge = chargeOf(state, agentId, outcome);
  if (charge !== null) state.charges.push(charge);
  if (state.phase !== 'running') return settleIfIdle(state, deps, kit, false);
  const result = toRunResult(state, agentId, outcome);
  state.results.push(result);
  if (state.stoppedBy === null && budgetReached(spentMicros(state), state.record.fees, state.record.maxCostMicros)) {
    state.stoppedBy = budgetError(state);
    state.abort.abort();
  }
  if (state.stoppedBy === null) {
    if (state.record.mode === 'SEQUENTIAL' && !result.ok) {
      // The first failure ends a sequential run (judgeRun reports it).
    } else {
      launchReady(state, deps, kit);
    }
  }
  // Progress is written only while agents are still running: when nothing is in flight the run
  // is settling, and its final transition records the final progress in the same write.
  if (state.inFlight.size > 0) writeProgress(state, deps);
  return settleIfIdle(state, deps, kit, false);
}

/** Once nothing is in flight and nothing more will start, judge the run and aggregate or fail. */
async function settleIfIdle(state: State, deps: ExecutionDeps, kit: ActorKit<ExecutionMessage>, force: boolean): Promise<State> {
  if (state.phase !== 'running') return state;
  const total = state.record.selectedAgents.length;
  const sequentialStopped = state.record.mode === 'SEQUENTIAL' && state.results.some((r) => !r.ok);
  const allDone = state.results.length === total;
  if (!force && state.inFlight.size > 0) return state;
  if (!force && !allDone && !sequentialStopped && state.stoppedBy === null) return state;
  const verdict = judgeRun({
    mode: state.record.mode,
    results: state.results,
    selected: total,
    ...(state.stoppedBy === null ? {} : { stoppedBy: state.stoppedBy }),
  });
  if (verdict.status === 'FAILED') {
    return close(state, deps, kit, 'FAILED', { result: verdict.result, error: verdict.error });
  }
  state.phase = 'aggregating';
  const aggregator = spawnActor(kit.self, aggregatorActor(deps.directory), { name: 'aggregator' });
  dispatch(aggregator, {
    type: 'aggregator.aggregate',
    strategy: state.record.aggregation,
    query: state.record.query,
    results: state.results,
    accountId: state.record.accountId,
    executionId: state.record.id,
    customAggregator: state.record.customAggregator,
    timeoutMs: state.record.timeoutMs ?? undefined,
    signal: state.abort.signal,
    traceparent: traceparentOf(state.span),
    replyTo: kit.self,
  });
  return state;
}

async function finish(
  state: State,
  deps: ExecutionDeps,
  kit: ActorKit<ExecutionMessage>,
  msg: Extract<ExecutionMessage, { type: 'execution.aggregated' }>,
): Promise<State> {
  if (state.phase !== 'aggregating') return state;
  if (state.record.customAggregator !== null && state.record.aggregation === 'custom' && (msg.reportedMicros !== null || msg.succeeded)) {
    // The aggregator was not in the estimate; only what it reports is charged.
    state.charges.push({ agentId: state.record.customAggregator, succeeded: msg.succeeded, reportedMicros: msg.reportedMicros ?? 0, basePriceMicros: 0 });
  }
  if (msg.result === null) {
    const error = msg.error ?? { code: RunErrorCode.AGGREGATOR_FAILED, message: 'Aggregation failed' };
    return close(state, deps, kit, 'FAILED', { error, result: { summary: error.message, details: {} } });
  }
  return close(state, deps, kit, 'COMPLETED', { result: msg.result });
}

async function close(
  state: State,
  deps: ExecutionDeps,
  kit: ActorKit<ExecutionMessage>,
  status: 'COMPLETED' | 'FAILED',
  outcome: { readonly result: AggregatedResult; readonly error?: ExecutionError },
): Promise<State> {
  state.phase = 'done';
  kit.timers.cancel('deadline');
  const patch: ExecutionPatch = {
    ...costPatch(state, deps),
    result: outcome.result,
    error: outcome.error ?? null,
    progress: progressOf(state, []),
  };
  const closed = await persist(deps, kit, state.record.id, `recording ${status}`, () => deps.executions.transition(state.record.id, ['RUNNING'], status, patch));
  if (closed !== null) {
    state.record = closed;
    deps.events.transitioned(closed);
  }
  // Closed here, or already closed by a cancel or a recovery scan: over either way.
  state.settled = true;
  kit.stopSelf();
  return state;
}

function costPatch(state: State, deps: ExecutionDeps): ExecutionPatch {
  const cost = actualCost(state.charges, state.record.fees);
  return {
    actualCostMicros: cost.totalMicros,
    actualDurationMs: Math.round(Date.now() - state.startedMs),
    agentsUsed: state.charges.length,
    completedAt: new Date().toISOString(),
  };
}

async function cancel(
  state: State,
  deps: ExecutionDeps,
  kit: ActorKit<ExecutionMessage>,
  replyTo: Parameters<typeof reply<CancelReply>>[0],
): Promise<State> {
  state.abort.abort();
  const patch: ExecutionPatch = {
    ...costPatch(state, deps),
    progress: progressOf(state, []),
  };
  const closed = await persist(deps, kit, state.record.id, 'recording CANCELLED', () =>
    deps.executions.transition(state.record.id, ['PENDING', 'RUNNING'], 'CANCELLED', patch),
  );
  if (closed !== null) {
    state.record = closed;
    deps.events.transitioned(closed);
  }
  reply(replyTo, { type: 'execution.cancelReply', record: closed });
  state.settled = true;
  state.phase = 'done';
  kit.stopSelf();
  return state;
}
