/**
 * AgentActor: one per registered agent per worker (DESIGN §5). Owns what a worker knows about
 * that agent at run time and every call this worker makes to it:
 *
 * - health polling: GET /health every `healthIntervalMs` plus jitter (so a fleet of actors does
 *   not poll in lockstep), the next poll scheduled only when the previous one finished; the agent
 *   is unhealthy after `unhealthyAfter` failed polls in a row, healthy again after one good poll;
 * - a circuit breaker: closed → open after `failureThreshold` consecutive call failures, or when
 *   the failure rate over the last `rateWindow` calls reaches `failureRate` (with at least
 *   `rateMinCalls` of them); open refuses calls for `cooldownMs`, then half-open: one probe
 *   (an immediate /health, or the first call to arrive) closes it on success or reopens it;
 * - a concurrency cap (the agent's `maxConcurrency` calls in flight per worker) with a FIFO wait
 *   queue that is not bounded here: admission control (src/services/limits/admission.ts) refuses new
 *   executions when calls wait too long, so an accepted execution's call is never refused for a
 *   full queue. A queued call's timeout starts when it is sent, not when it was queued;
 * - EWMA of success (all calls) and latency (successful calls), published to selection and
 *   estimates through `publish` after every change.
 *
 * Calls run outside the handler (the mailbox is never blocked by an agent); their completions
 * come back as `agent.callFinished`. The protocol and its guarantees are in agent-protocol.ts.
 */
import type { AgentClient } from '../ports/agent-client.js';
import type { AgentCallFailure, ExecuteOutcome } from '../ports/agent-outcomes.js';
import type { ExecuteRequest } from '../schemas/agent-protocol.js';
import type { AgentRecord } from '../domain/agents.js';
import { reply } from './kit/ask.js';
import { defineActor, type ActorDefinition, type ActorKit } from './kit/define.js';
import type { KitLogger } from './kit/logger.js';
import { dispatch } from './kit/nact.js';
import type { ReplyRef } from './kit/protocol.js';
import { AgentRejectionKind, isCallerCaused, type AgentCall, type AgentCallOutcome, type AgentExecuted, type AgentMessage, type AgentRejection } from './agent-protocol.js';
import { CircuitState } from '../domain/agents.js';
import { type AgentStatsSnapshot } from '../domain/agents.js';

export interface AgentActorOptions {
  readonly agent: AgentRecord;
  /** The worker's one shared client (one keep-alive pool per agent origin). */
  readonly client: Pick<AgentClient, 'execute' | 'executeStreaming' | 'getHealth'>;
  /** Receives a fresh snapshot after every change; must not throw. */
  readonly publish: (stats: AgentStatsSnapshot) => void;
  readonly logger: KitLogger;
  readonly tuning?: Partial<AgentTuning>;
  /** Told how long each queued call waited for a slot (admission watches it); must not throw. */
  readonly onQueueWait?: (waitedMs: number) => void;
  /** Jitter source, 0..1; tests pass a constant. */
  readonly random?: () => number;
}

export interface AgentTuning {
  readonly healthIntervalMs: number;
  /** Up to this much is added to each interval (and is the first poll's whole delay). */
  readonly healthJitterMs: number;
  readonly healthTimeoutMs: number;
  readonly unhealthyAfter: number;
  readonly failureThreshold: number;
  readonly rateWindow: number;
  readonly rateMinCalls: number;
  readonly failureRate: number;
  readonly cooldownMs: number;
  /** Weight of the newest sample in the EWMAs. */
  readonly ewmaAlpha: number;
}

export const DEFAULT_AGENT_TUNING: AgentTuning = {
  healthIntervalMs: 10_000,
  healthJitterMs: 2_000,
  healthTimeoutMs: 5_000,
  unhealthyAfter: 2,
  failureThreshold: 5,
  rateWindow: 20,
  rateMinCalls: 10,
  failureRate: 0.5,
  cooldownMs: 30_000,
  ewmaAlpha: 0.2,
};

interface Waiting {
  readonly callId: number;
  readonly call: AgentCall;
  readonly replyTo: ReplyRef<AgentExecuted>;
  readonly budgetMs: number;
  readonly enqueuedAtMs: number;
  readonly detach: () => void;
}

interface Running {
  readonly startedAtMs: number;
  /** This call is the half-open probe: its result decides the circuit. */
  readonly probe: boolean;
}

/** Shared with the continuations of calls in flight, which outlive a stopped actor. */
interface Lifecycle {
  stopped: boolean;
}

/** Mutable on purpose: one state object per actor, changed in place by each message. */
export interface AgentState {
  agent: AgentRecord;
  healthy: boolean;
  healthFailures: number;
  lastHealthCheckAtMs: number | null;
  lastHealthError: string | null;
  probeId: number;
  probing: boolean;
  circuit: CircuitState;
  /** Set while the half-open probe (health or call) is out. */
  halfOpenProbe: boolean;
  consecutiveFailures: number;
  /** Outcomes of the most recent calls (true: success), oldest first, at most `rateWindow`. */
  recent: boolean[];
  successRate: number;
  latencyMs: number | null;
  calls: number;
  failures: number;
  readonly running: Map<number, Running>;
  queue: Waiting[];
  readonly lifecycle: Lifecycle;
}

// Unique across actors and restarts, so a completion from a previous incarnation is recognisable.
let lastCallId = 0;
let lastProbeId = 0;

const HEALTH = 'health';
const COOLDOWN = 'cooldown';

function rejection(kind: AgentRejectionKind, message: string, durationMs = 0): AgentRejection {
  return { ok: false, kind, message, durationMs, rejected: true };
}

function describe(outcome: AgentCallFailure): string {
  return outcome.status === undefined ? `${outcome.kind}: ${outcome.message}` : `${outcome.kind} (${outcome.status}): ${outcome.message}`;
}

/** The AgentActor definition, for `spawnActor(registry, agentActor(options), { name })`. */
export function agentActor(options: AgentActorOptions): ActorDefinition<AgentState, AgentMessage> {
  const { client, publish, logger } = options;
  const tuning: AgentTuning = { ...DEFAULT_AGENT_TUNING, ...options.tuning };
  const random = options.random ?? Math.random;
  type Kit = ActorKit<AgentMessage>;

  const snapshot = (state: AgentState): AgentStatsSnapshot => ({
    agentId: state.agent.id,
    ownerAccountId: state.agent.ownerAccountId,
    healthy: state.healthy,
    circuit: state.circuit,
    circuitOpen: state.circuit !== CircuitState.CLOSED,
    successRate: state.successRate,
    latencyMs: state.latencyMs,
    consecutiveFailures: state.consecutiveFailures,
    inFlight: state.running.size,
    queued: state.queue.length,
    calls: state.calls,
    failures: state.failures,
    lastHealthCheckAtMs: state.lastHealthCheckAtMs,
    lastHealthError: state.lastHealthError,
  });

  const scheduleHealth = (kit: Kit, delayMs: number): void => {
    kit.timers.start(HEALTH, delayMs, (timer) => ({ type: 'agent.healthDue', timer }));
  };

  const probeHealth = (state: AgentState, kit: Kit): void => {
    if (state.probing) return;
    state.probing = true;
    const probeId = ++lastProbeId;
    state.probeId = probeId;
    const self = kit.self;
    const url = state.agent.url;
    void client.getHealth(url, { timeoutMs: tuning.healthTimeoutMs }).then(
      (outcome) => {
        const ok = outcome.ok && outcome.healthy;
        const error = outcome.ok ? (outcome.healthy ? null : `agent reported status '${outcome.health.status}'`) : describe(outcome);
        dispatch(self, { type: 'agent.healthChecked', probeId, ok, error });
      },
      (err: unknown) => dispatch(self, { type: 'agent.healthChecked', probeId, ok: false, error: String(err) }),
    );
  };

  const open = (state: AgentState, kit: Kit, why: string): void => {
    if (state.circuit !== CircuitState.OPEN) {
      logger.warn({ agent: state.agent.id, owner: state.agent.ownerAccountId, why, cooldownMs: tuning.cooldownMs }, 'agent circuit opened');
    }
    state.circuit = CircuitState.OPEN;
    state.halfOpenProbe = false;
    state.recent = [];
    kit.timers.start(COOLDOWN, tuning.cooldownMs, (timer) => ({ type: 'agent.cooldownOver', timer }));
    // Waiting calls would only be refused one by one as slots free up: refuse them now.
    const waiting = state.queue;
    state.queue = [];
    for (const w of waiting) {
      w.detach();
      answer(state, w.replyTo, rejection(AgentRejectionKind.CIRCUIT_OPEN, `Agent '${state.agent.id}' circuit is open: ${why}`));
    }
  };

  const close = (state: AgentState, kit: Kit): void => {
    if (state.circuit !== CircuitState.CLOSED) logger.info({ agent: state.agent.id, owner: state.agent.ownerAccountId }, 'agent circuit closed');
    state.circuit = CircuitState.CLOSED;
    state.halfOpenProbe = false;
    state.consecutiveFailures = 0;
    kit.timers.cancel(COOLDOWN);
  };

  const answer = (state: AgentState, replyTo: ReplyRef<AgentExecuted>, outcome: AgentCallOutcome): void => {
    reply(replyTo, { type: 'agent.executed', agentId: state.agent.id, outcome });
  };

  /**
   * Sends the call with its whole budget `timeoutMs`, whether launched on arrival or after a wait
   * for a slot: the agent's `metadata.timeout` is exactly the budget, counted from now.
   */
  const launch = (state: AgentState, kit: Kit, callId: number, call: AgentCall, replyTo: ReplyRef<AgentExecuted>, timeoutMs: number, probe: boolean): void => {
    const nowMs = kit.clock.now();
    if (call.signal?.aborted === true) {
      answer(state, replyTo, rejection(AgentRejectionKind.CANCELLED, 'The call was cancelled before it was sent'));
      if (probe) state.halfOpenProbe = false;
      return;
    }
    const body: ExecuteRequest = {
      input: { prompt: call.prompt, context: call.context },
      metadata: { requestId: call.requestId, userId: call.userId, timeout: timeoutMs },
    };
    const execOptions = { timeoutMs, signal: call.signal, traceparent: call.traceparent };
    const pending = call.onChunk === undefined
      ? client.execute(state.agent.url, body, execOptions)
      : client.executeStreaming(state.agent.url, body, call.onChunk, execOptions);
    state.running.set(callId, { startedAtMs: nowMs, probe });
    const self = kit.self;
    const lifecycle = state.lifecycle;
    const agentId = state.agent.id;
    const finish = (outcome: ExecuteOutcome): void => {
      // A stopped actor cannot take the completion; the caller still gets its answer.
      if (lifecycle.stopped) reply(replyTo, { type: 'agent.executed', agentId, outcome });
      else dispatch(self, { type: 'agent.callFinished', callId, outcome, replyTo });
    };
    void pending.then(finish, (err: unknown) =>
      finish({ ok: false, kind: 'reset', message: `agent client failed: ${String(err)}`, durationMs: kit.clock.now() - nowMs }),
    );
  };

  const drain = (state: AgentState, kit: Kit): void => {
    while (state.running.size < state.agent.maxConcurrency && state.queue.length > 0) {
      const next = state.queue.shift();
      if (next === undefined) break;
      next.detach();
      options.onQueueWait?.(kit.clock.now() - next.enqueuedAtMs);
      launch(state, kit, next.callId, next.call, next.replyTo, next.budgetMs, false);
    }
  };

  const record = (state: AgentState, kit: Kit, ok: boolean, latencyMs: number, probe: boolean, why: string): void => {
    const a = tuning.ewmaAlpha;
    state.calls += 1;
    state.successRate = state.successRate * (1 - a) + (ok ? a : 0);
    state.recent.push(ok);
    if (state.recent.length > tuning.rateWindow) state.recent.shift();
    if (ok) {
      state.latencyMs = state.latencyMs === null ? latencyMs : state.latencyMs * (1 - a) + latencyMs * a;
      state.consecutiveFailures = 0;
      if (probe || state.circuit === CircuitState.HALF_OPEN) close(state, kit);
      return;
    }
    state.failures += 1;
    state.consecutiveFailures += 1;
    if (probe || state.circuit === CircuitState.HALF_OPEN) {
      open(state, kit, `half-open probe call failed: ${why}`);
      return;
    }
    if (state.circuit !== CircuitState.CLOSED) return;
    if (state.consecutiveFailures >= tuning.failureThreshold) {
      open(state, kit, `${state.consecutiveFailures} consecutive failures, last: ${why}`);
      return;
    }
    const failed = state.recent.filter((r) => !r).length;
    if (state.recent.length >= tuning.rateMinCalls && failed / state.recent.length >= tuning.failureRate) {
      open(state, kit, `${failed} of the last ${state.recent.length} calls failed, last: ${why}`);
    }
  };

  return defineActor<AgentState, AgentMessage>({
    init: (kit) => {
      scheduleHealth(kit, Math.round(tuning.healthJitterMs * random()));
      const state: AgentState = {
        agent: options.agent,
        healthy: true,
        healthFailures: 0,
        lastHealthCheckAtMs: null,
        lastHealthError: null,
        probeId: -1,
        probing: false,
        circuit: CircuitState.CLOSED,
        halfOpenProbe: false,
        consecutiveFailures: 0,
        recent: [],
        successRate: 1,
        latencyMs: null,
        calls: 0,
        failures: 0,
        running: new Map(),
        queue: [],
        lifecycle: { stopped: false },
      };
      publish(snapshot(state));
      return state;
    },

    handle: (state, msg, kit) => {
      switch (msg.type) {
        case 'agent.execute': {
          const nowMs = kit.clock.now();
          const budgetMs = Math.min(state.agent.timeoutMs, msg.call.timeoutMs ?? Number.POSITIVE_INFINITY);
          if (state.circuit === CircuitState.OPEN || (state.circuit === CircuitState.HALF_OPEN && state.halfOpenProbe)) {
            answer(state, msg.replyTo, rejection(AgentRejectionKind.CIRCUIT_OPEN, `Agent '${state.agent.id}' circuit is ${state.circuit}; retry later`));
            return state;
          }
          const callId = ++lastCallId;
          if (state.circuit === CircuitState.HALF_OPEN) {
            // No probe out yet: this call is the probe, whatever the concurrency.
            state.halfOpenProbe = true;
            launch(state, kit, callId, msg.call, msg.replyTo, budgetMs, true);
          } else if (state.running.size < state.agent.maxConcurrency) {
            launch(state, kit, callId, msg.call, msg.replyTo, budgetMs, false);
          } else {
            const self = kit.self;
            const signal = msg.call.signal;
            const onAbort = (): void => dispatch(self, { type: 'agent.callCancelled', callId });
            signal?.addEventListener('abort', onAbort, { once: true });
            state.queue.push({
              callId,
              call: msg.call,
              replyTo: msg.replyTo,
              budgetMs,
              enqueuedAtMs: nowMs,
              detach: () => signal?.removeEventListener('abort', onAbort),
            });
          }
          publish(snapshot(state));
          return state;
        }

        case 'agent.callFinished': {
          const running = state.running.get(msg.callId);
          // From a previous incarnation (restart): answer the caller, count nothing.
          if (running === undefined) {
            answer(state, msg.replyTo, msg.outcome);
            return state;
          }
          state.running.delete(msg.callId);
          const outcome = msg.outcome;
          if (outcome.ok) record(state, kit, true, outcome.durationMs, running.probe, 'ok');
          else if (!isCallerCaused(outcome)) record(state, kit, false, outcome.durationMs, running.probe, describe(outcome));
          else if (running.probe) state.halfOpenProbe = false;
          answer(state, msg.replyTo, outcome);
          drain(state, kit);
          publish(snapshot(state));
          return state;
        }

        case 'agent.callCancelled': {
          const index = state.queue.findIndex((w) => w.callId === msg.callId);
          const waiting = state.queue[index];
          if (waiting === undefined) return state;
          state.queue.splice(index, 1);
          waiting.detach();
          const waitedMs = kit.clock.now() - waiting.enqueuedAtMs;
          answer(state, waiting.replyTo, rejection(AgentRejectionKind.CANCELLED, 'The call was cancelled while waiting for a free slot', waitedMs));
          publish(snapshot(state));
          return state;
        }

        case 'agent.stats':
          reply(msg.replyTo, { type: 'agent.statsReply', stats: snapshot(state) });
          return state;

        case 'agent.update': {
          const urlChanged = msg.agent.url !== state.agent.url;
          state.agent = msg.agent;
          if (urlChanged) probeHealth(state, kit);
          // A raised cap lets waiting calls go now.
          drain(state, kit);
          publish(snapshot(state));
          return state;
        }

        case 'agent.checkHealth':
          probeHealth(state, kit);
          return state;

        case 'agent.healthDue':
          probeHealth(state, kit);
          return state;

        case 'agent.cooldownOver':
          state.circuit = CircuitState.HALF_OPEN;
          state.halfOpenProbe = true;
          // Probe at once: selection skips a half-open agent, so no call would come to probe it.
          // A poll already out counts as the probe (probeHealth does nothing then).
          probeHealth(state, kit);
          publish(snapshot(state));
          return state;

        case 'agent.healthChecked': {
          if (msg.probeId !== state.probeId) return state;
          state.probing = false;
          state.lastHealthCheckAtMs = kit.clock.now();
          state.lastHealthError = msg.error;
          if (msg.ok) {
            if (!state.healthy) logger.info({ agent: state.agent.id, owner: state.agent.ownerAccountId }, 'agent healthy again');
            state.healthy = true;
            state.healthFailures = 0;
          } else {
            state.healthFailures += 1;
            if (state.healthy && state.healthFailures >= tuning.unhealthyAfter) {
              state.healthy = false;
              logger.warn({ agent: state.agent.id, owner: state.agent.ownerAccountId, error: msg.error }, 'agent unhealthy');
            }
          }
          // In half-open, a health probe decides unless a probe call is out (that call decides).
          if (state.circuit === CircuitState.HALF_OPEN && ![...state.running.values()].some((r) => r.probe)) {
            if (msg.ok) close(state, kit);
            else open(state, kit, `half-open health probe failed: ${msg.error ?? 'unknown'}`);
          }
          scheduleHealth(kit, tuning.healthIntervalMs + Math.round(tuning.healthJitterMs * random()));
          publish(snapshot(state));
          return state;
        }
      }
    },

    afterStop: (state) => {
      state.lifecycle.stopped = true;
      for (const w of state.queue) {
        w.detach();
        answer(state, w.replyTo, rejection(AgentRejectionKind.STOPPED, `Agent '${state.agent.id}' was removed or the worker is stopping`));
      }
      state.queue = [];
    },
  });
}
