/**
 * Messages of the AgentActor (one per registered agent per worker) and of its supervisor.
 *
 * How orchestration calls an agent (normally through `AgentDirectory.execute`, which does this):
 *
 *   const reply = await ask(ref, (replyTo) => ({
 *     type: 'agent.execute', replyTo,
 *     call: { prompt, context, requestId, userId, timeoutMs, signal },
 *   }), callTimeoutMs + queueWaitMs + slack);
 *   switch (reply.outcome.kind) { ... }   // reply.outcome.ok === true: the agent's result
 *
 * Guarantees: every `agent.execute` gets exactly one `agent.executed` reply (also when the call
 * is refused, cancelled, or the actor stops meanwhile); the agent receives `metadata.timeout` =
 * min(agent timeoutMs, call timeoutMs), counted from when the call is sent (time spent queued for
 * a slot is not taken from it). The queue has no bound of its own: admission control bounds it.
 * Failures are data (`AgentCallOutcome`), never exceptions.
 */
import { CircuitState, type AgentStatsSnapshot } from '../domain/agents.js';
import type { AgentCallFailureKind } from '../domain/errors.js';
import type { AgentCallFailure, ExecuteOutcome } from '../ports/agent-outcomes.js';
import type { ChunkListener } from '../ports/agent-client.js';
import type { AgentRecord } from '../domain/agents.js';
import type { ReplyRef } from './kit/protocol.js';
import type { TimerTick } from './kit/timers.js';


/** Refusals by the actor itself (no request reached the agent). */
export const AgentRejectionKind = {
  /** The circuit is open (or half-open with its probe in flight). Retry elsewhere or later. */
  CIRCUIT_OPEN: 'circuit_open',
  /** The caller's signal aborted the call before it was sent. */
  CANCELLED: 'cancelled',
  /** The agent was deleted (or the worker is stopping). */
  STOPPED: 'stopped',
} as const;
export type AgentRejectionKind = (typeof AgentRejectionKind)[keyof typeof AgentRejectionKind];

export interface AgentRejection {
  readonly ok: false;
  readonly kind: AgentRejectionKind;
  readonly message: string;
  readonly durationMs: number;
  /** Refusals are not the agent's answer: nothing was sent, nothing is owed. */
  readonly rejected: true;
}

/** What a call came to: the agent's success, a protocol failure (outcome.ts), or a refusal. */
export type AgentCallOutcome = ExecuteOutcome | AgentRejection;

/** One call to an agent's /execute. */
/**
 * What the run actors need of agents (the narrow port they depend on): the agent an account sees,
 * and one call through that agent's actor. The agent directory (src/services/agents) implements it.
 */
export interface AgentCalls {
  visible(accountId: string | null, id: string): AgentRecord | undefined;
  /** Always resolves; an agent the account does not see resolves to a `stopped` rejection. */
  execute(accountId: string | null, agentId: string, call: AgentCall): Promise<AgentCallOutcome>;
}

export interface AgentCall {
  readonly prompt: string;
  readonly context: Readonly<Record<string, unknown>>;
  readonly requestId: string;
  readonly userId: string;
  /** Lowers the agent's own timeoutMs (DESIGN §7); the smaller one is sent as metadata.timeout. */
  readonly timeoutMs?: number;
  /** Cancels the call (queued or in flight); the reply then has kind `cancelled` or `aborted`. */
  readonly signal?: AbortSignal;
  /** Receive streamed answer text live (the agent answers with text/event-stream). In-process only. */
  readonly onChunk?: ChunkListener;
  /** W3C trace context of the caller (the run's span); sent to the agent as `traceparent`. */
  readonly traceparent?: string;
}


export interface AgentExecuted {
  readonly type: 'agent.executed';
  readonly agentId: string;
  readonly outcome: AgentCallOutcome;
}

export interface AgentStatsReply {
  readonly type: 'agent.statsReply';
  readonly stats: AgentStatsSnapshot;
}

/** What other code may send an AgentActor. */
export type AgentCommand =
  | { readonly type: 'agent.execute'; readonly call: AgentCall; readonly replyTo: ReplyRef<AgentExecuted> }
  | { readonly type: 'agent.stats'; readonly replyTo: ReplyRef<AgentStatsReply> }
  /** The registration changed (PATCH): new URL, timeout, concurrency cap, texts. Stats and circuit are kept. */
  | { readonly type: 'agent.update'; readonly agent: AgentRecord }
  /** Poll /health now instead of at the next tick (e.g. after an update of the URL). */
  | { readonly type: 'agent.checkHealth' };

/** What the actor sends itself (timers, completions of its own async work). */
export type AgentInternal =
  | { readonly type: 'agent.healthDue'; readonly timer: TimerTick }
  | { readonly type: 'agent.cooldownOver'; readonly timer: TimerTick }
  | {
      readonly type: 'agent.healthChecked';
      readonly probeId: number;
      readonly ok: boolean;
      readonly error: string | null;
    }
  | {
      readonly type: 'agent.callFinished';
      readonly callId: number;
      readonly outcome: ExecuteOutcome;
      readonly replyTo: ReplyRef<AgentExecuted>;
    }
  | { readonly type: 'agent.callCancelled'; readonly callId: number };

export type AgentMessage = AgentCommand | AgentInternal;

/** Every outcome kind has its catalogue code, and the catalogue names no other kind. */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const everyKindHasACode: Same<AgentCallOutcome extends infer O ? (O extends { ok: false; kind: infer K } ? K : never) : never, AgentCallFailureKind> = true;
void everyKindHasACode;

/** Failure kinds that say nothing about the agent's health (the caller gave up). */
export function isCallerCaused(outcome: AgentCallFailure): boolean {
  return outcome.kind === 'aborted';
}

/** Supervisor of every AgentActor of a worker: a liveness check; the directory spawns children. */
export interface AgentRegistryPong {
  readonly type: 'agentRegistry.pong';
}
export type AgentRegistryMessage = { readonly type: 'agentRegistry.ping'; readonly replyTo: ReplyRef<AgentRegistryPong> };
