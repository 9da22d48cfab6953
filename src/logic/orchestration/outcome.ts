/**
 * Execution states and how a run's agent results decide its final state (DESIGN §7):
 *
 *   PENDING → RUNNING → COMPLETED | FAILED | CANCELLED, and PENDING → CANCELLED | FAILED.
 *
 * - PARALLEL and DAG: some agents failed → COMPLETED, each failure under its id in
 *   `result.details`; every agent failed → FAILED with ALL_AGENTS_FAILED.
 * - SEQUENTIAL: the first failure stops the run → FAILED with AGENT_FAILED naming the step.
 * - A run stopped from outside its agents (maxCost reached, overall deadline) → FAILED with that
 *   reason, whatever finished before it.
 * - custom aggregation: the aggregator agent failing → FAILED with AGGREGATOR_FAILED.
 * A FAILED outcome still carries `result.details` listing each agent that ran (or was blocked),
 * so a client can see which part failed; the top-level `error` says why the execution failed.
 */
import { agentDetails } from './aggregate.js';
import { RunErrorCode } from '../../domain/errors.js';
import { isTerminalExecution } from '../../domain/executions.js';
import type { AgentRunResult, AggregatedResult, ExecutionError, ExecutionMode, ExecutionStatus } from '../../domain/orchestration.js';

const TRANSITIONS: Readonly<Record<ExecutionStatus, readonly ExecutionStatus[]>> = {
  PENDING: ['RUNNING', 'CANCELLED', 'FAILED'],
  RUNNING: ['COMPLETED', 'FAILED', 'CANCELLED'],
  COMPLETED: [],
  FAILED: [],
  CANCELLED: [],
};

export function canTransition(from: ExecutionStatus, to: ExecutionStatus): boolean {
  return TRANSITIONS[from].includes(to);
}

/** Cancel is allowed only before a final state (otherwise 409 EXECUTION_NOT_CANCELLABLE). */
export function isCancellable(status: ExecutionStatus): boolean {
  return !isTerminalExecution(status);
}

/** SEQUENTIAL: whether the next step may start after `last` finished. */
export function sequentialContinues(last: AgentRunResult): boolean {
  return last.ok;
}

export interface RunSummary {
  readonly mode: ExecutionMode;
  /** Results of the agents that ran (and DAG nodes blocked by a failed dependency), in run order. */
  readonly results: readonly AgentRunResult[];
  /** How many agents were selected. */
  readonly selected: number;
  /** Set when something other than the agents ended the run early (budget, deadline). */
  readonly stoppedBy?: ExecutionError;
}

/** What the run's results allow: aggregate them (COMPLETED), or FAILED with an error and details. */
export type RunVerdict =
  | { readonly status: 'COMPLETED' }
  | { readonly status: 'FAILED'; readonly error: ExecutionError; readonly result: AggregatedResult };

/** Decides COMPLETED or FAILED; on COMPLETED the caller aggregates (`aggregate` or the custom agent). */
export function judgeRun(run: RunSummary): RunVerdict {
  const { results } = run;
  if (run.stoppedBy !== undefined) return failed(run.stoppedBy, results);
  if (run.mode === 'SEQUENTIAL') {
    const index = results.findIndex((r) => !r.ok);
    const first = results[index];
    if (first !== undefined && !first.ok) {
      return failed(
        {
          code: RunErrorCode.AGENT_FAILED,
          message: `Step ${index + 1} of ${run.selected} (agent '${first.agentId}') failed: ${first.error.message}`,
        },
        results,
      );
    }
  }
  if (results.length === 0 || results.every((r) => !r.ok)) {
    const count = results.length;
    const reasons = results.map((r) => (r.ok ? '' : `${r.agentId}: ${r.error.message}`)).join('; ');
    return failed(
      {
        code: RunErrorCode.ALL_AGENTS_FAILED,
        message: count === 0 ? 'No agent ran' : `All ${count} agent${count === 1 ? '' : 's'} failed (${reasons})`,
      },
      results,
    );
  }
  return { status: 'COMPLETED' };
}

/** FAILED because the `custom` aggregator agent failed; the agents' own results stay in details. */
export function aggregatorFailed(aggregatorId: string, error: ExecutionError, results: readonly AgentRunResult[]): RunVerdict {
  return failed(
    { code: RunErrorCode.AGGREGATOR_FAILED, message: `Aggregator agent '${aggregatorId}' failed: ${error.message}` },
    results,
  );
}

function failed(error: ExecutionError, results: readonly AgentRunResult[]): RunVerdict {
  return { status: 'FAILED', error, result: { summary: error.message, details: agentDetails(results) } };
}
