/**
 * Messages of the WorkflowRunActor (one per workflow run), its ApprovalActor children (one per
 * pending approval) and the per-worker WorkflowRunsSupervisor. The HTTP layer never sees these;
 * it talks to `src/services/workflows/service.ts`.
 */
import type { AgentCallOutcome } from './agent-protocol.js';
import type { ReplyRef } from './kit/protocol.js';
import type { TimerTick } from './kit/timers.js';
import type { ToolResultEntry, WorkflowRunRecord } from '../domain/workflows.js';
import type { McpToolset } from '../domain/workflows.js';

export type ApprovalDecision = 'approved' | 'rejected' | 'expired';

export interface RunCancelReply {
  readonly type: 'workflowRun.cancelReply';
  /** The record after the cancel, or null when the run had already finished. */
  readonly record: WorkflowRunRecord | null;
}

export interface DecisionApplied {
  readonly type: 'workflowRun.decisionApplied';
}

export interface NotHere {
  readonly type: 'workflowRuns.notHere';
}

/** The run is on this worker and was told it holds a slot now. */
export interface SlotDelivered {
  readonly type: 'workflowRuns.slotDelivered';
}

export type WorkflowRunMessage =
  /** `queued`: the run has a queue place, not a slot yet; it waits for `slotGranted`. */
  | { readonly type: 'workflowRun.start'; readonly queued: boolean }
  /** The run was promoted from the concurrency queue into a slot: go on. */
  | { readonly type: 'workflowRun.slotGranted' }
  /** Ask for a slot again (the queue was full, or the store failed). */
  | { readonly type: 'workflowRun.retrySlot'; readonly timer: TimerTick }
  /** Go on from the stored checkpoint (after a restart or a takeover). */
  | { readonly type: 'workflowRun.resume' }
  /** The step's MCP servers were listed (once per step, before its first agent call). */
  | { readonly type: 'workflowRun.mcpListed'; readonly stepIndex: number; readonly toolset: McpToolset }
  | { readonly type: 'workflowRun.agentDone'; readonly round: number; readonly outcome: AgentCallOutcome; readonly chunks: number }
  | { readonly type: 'workflowRun.toolDone'; readonly callId: string; readonly entry: ToolResultEntry }
  /** A decision was recorded in the store (on any worker): read it and apply it. */
  | { readonly type: 'workflowRun.decision'; readonly approvalId: string; readonly replyTo: ReplyRef<DecisionApplied> }
  /** From the ApprovalActor: the decision it found or the expiry it recorded. */
  | { readonly type: 'workflowRun.approvalResolved'; readonly approvalId: string; readonly decision: ApprovalDecision; readonly reason: string | null }
  | { readonly type: 'workflowRun.cancel'; readonly replyTo: ReplyRef<RunCancelReply> };

export type ApprovalMessage =
  | { readonly type: 'approval.expire'; readonly timer: TimerTick }
  | { readonly type: 'approval.stop' };

export type WorkflowRunsMessage =
  /** `queued`: a new run that got a queue place rather than a slot. */
  | { readonly type: 'workflowRuns.start'; readonly record: WorkflowRunRecord; readonly resume: boolean; readonly queued?: boolean; readonly traceparent?: string }
  /** A run was promoted into a slot (on any worker): hand it to the run if it is here. */
  | { readonly type: 'workflowRuns.slot'; readonly executionId: string; readonly replyTo: ReplyRef<SlotDelivered | NotHere> }
  /** From a run actor: it took (true) or gave up (false) its slot. */
  | { readonly type: 'workflowRuns.holding'; readonly executionId: string; readonly accountId: string; readonly holding: boolean }
  | { readonly type: 'workflowRuns.renewLeases'; readonly timer: TimerTick }
  | { readonly type: 'workflowRuns.decision'; readonly executionId: string; readonly approvalId: string; readonly replyTo: ReplyRef<DecisionApplied | NotHere> }
  | { readonly type: 'workflowRuns.cancel'; readonly executionId: string; readonly replyTo: ReplyRef<RunCancelReply | NotHere> }
  | { readonly type: 'workflowRuns.finished'; readonly executionId: string };
