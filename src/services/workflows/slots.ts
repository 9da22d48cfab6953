/**
 * Concurrency slots for workflow runs (docs/limits.md, docs/workflows.md): a run counts against
 * its account's concurrent executions, shared with orchestrations, while it works; it gives the
 * slot up while paused on an approval and takes one again to go on. The run id is the holder id
 * (`exec_…` ids are unique across orchestrations and runs). Runs take slots through the
 * `Concurrency` facade (src/services/limits/concurrency.ts), as orchestrations do.
 */

/** Workflows carry no latency estimate; a step (an agent call and its tools) is taken as about this long. */
const ESTIMATED_MS_PER_STEP = 10_000;

/** A rough duration of a run, for QUEUE_FULL's retryAfter. */
export function estimatedRunMs(steps: number): number {
  return Math.max(1, steps) * ESTIMATED_MS_PER_STEP;
}
