/**
 * Messages of the ExecutionActor (one per orchestration execution) and its supervisor.
 * The HTTP layer never sees these; it talks to `src/services/orchestration/service.ts`.
 */
import type { AgentCallOutcome } from './agent-protocol.js';
import type { ReplyRef } from './kit/protocol.js';
import type { TimerTick } from './kit/timers.js';
import type { ExecutionRecord } from '../domain/executions.js';
import type { AggregatedResult } from '../domain/orchestration.js';

export interface CancelReply {
  readonly type: 'execution.cancelReply';
  /** The record after the cancel, or null when the execution had already finished. */
  readonly record: ExecutionRecord | null;
}

export type ExecutionMessage =
  | { readonly type: 'execution.run' }
  | { readonly type: 'execution.agentDone'; readonly agentId: string; readonly outcome: AgentCallOutcome }
  | { readonly type: 'execution.aggregated'; readonly result: AggregatedResult | null; readonly error: { readonly code: string; readonly message: string } | null; readonly reportedMicros: number | null; readonly succeeded: boolean }
  | { readonly type: 'execution.cancel'; readonly replyTo: ReplyRef<CancelReply> }
  | { readonly type: 'execution.deadline'; readonly timer: TimerTick };

export type ExecutionsMessage =
  /** `traceparent`: the submitting request's trace context, so the run joins its trace. */
  | { readonly type: 'executions.start'; readonly record: ExecutionRecord; readonly traceparent?: string }
  | { readonly type: 'executions.cancel'; readonly executionId: string; readonly replyTo: ReplyRef<CancelReply | { readonly type: 'executions.notHere' }> }
  | { readonly type: 'executions.finished'; readonly executionId: string; readonly settled: boolean };
