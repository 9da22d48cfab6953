/** Plain data shapes shared by the orchestration functions (and, later, the execution actors). */

export const ExecutionMode = { PARALLEL: 'PARALLEL', SEQUENTIAL: 'SEQUENTIAL', DAG: 'DAG' } as const;
export type ExecutionMode = (typeof ExecutionMode)[keyof typeof ExecutionMode];

export const ExecutionStatus = {
  PENDING: 'PENDING',
  RUNNING: 'RUNNING',
  COMPLETED: 'COMPLETED',
  FAILED: 'FAILED',
  CANCELLED: 'CANCELLED',
} as const;
export type ExecutionStatus = (typeof ExecutionStatus)[keyof typeof ExecutionStatus];

export const AggregationStrategy = { MERGE: 'merge', BEST: 'best', VOTE: 'vote', CUSTOM: 'custom' } as const;
export type AggregationStrategy = (typeof AggregationStrategy)[keyof typeof AggregationStrategy];

/** `{ code, message }` of a failed agent (in `result.details`) or a FAILED execution (top level). */
export interface ExecutionError {
  readonly code: string;
  readonly message: string;
}

/** How one selected agent's part of a run ended. */
export type AgentRunResult =
  | {
      readonly agentId: string;
      readonly ok: true;
      /** The agent's `result` object. */
      readonly output: Readonly<Record<string, unknown>>;
      /** Selection confidence 0..1 (used by `best` and `vote` tie-breaks). */
      readonly confidence: number;
    }
  | {
      readonly agentId: string;
      readonly ok: false;
      readonly error: ExecutionError;
      readonly confidence: number;
    };

/** `result` of an execution (spec §2.3). */
export interface AggregatedResult {
  readonly summary: string;
  readonly details: Readonly<Record<string, unknown>>;
}
