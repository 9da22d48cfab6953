/** Orchestration executions as recorded: status, progress, cost, result. */
import { Tier } from './accounts.js';

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
/** The statuses an execution ends in and never leaves (src/client/wait.ts keeps its own copy). */
export const TERMINAL_EXECUTION_STATUSES: readonly ExecutionStatusName[] = ['COMPLETED', 'FAILED', 'CANCELLED'];
const TERMINAL_EXECUTION: ReadonlySet<string> = new Set(TERMINAL_EXECUTION_STATUSES);
/** Whether an execution in this status is over: COMPLETED, FAILED or CANCELLED. */
export function isTerminalExecution(status: string): boolean {
  return TERMINAL_EXECUTION.has(status);
}
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
