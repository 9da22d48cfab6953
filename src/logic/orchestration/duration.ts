/**
 * `estimatedDuration` (DESIGN §7) from per-agent latency estimates (the AgentActors' EWMA of
 * call latency): SEQUENTIAL runs one after another (sum), PARALLEL all at once (max), DAG along
 * its longest dependency chain (critical path). A `custom` aggregation adds the aggregator
 * agent's call after all of them.
 */
import type { DagPlan } from './dag.js';
import type { ExecutionMode } from '../../domain/orchestration.js';

/**
 * Assumed latency of an agent without statistics yet (just registered, never called). A guess
 * near a typical LLM-backed call; its timeout would overstate estimates for every new agent.
 */
export const DEFAULT_LATENCY_ESTIMATE_MS = 5_000;

export interface LatencyEstimate {
  readonly agentId: string;
  /** Expected call latency; undefined when the agent has no statistics yet. */
  readonly latencyMs: number | undefined;
}

export interface DurationOptions {
  /** Required for DAG; the plan from `planDag`. */
  readonly plan?: DagPlan;
  /** Latency of a `custom` aggregator agent, run after every other agent. */
  readonly aggregatorLatencyMs?: number;
  readonly defaultLatencyMs?: number;
}

/** Expected wall time of a run in whole milliseconds. */
export function estimateDurationMs(mode: ExecutionMode, agents: readonly LatencyEstimate[], options: DurationOptions = {}): number {
  const fallback = options.defaultLatencyMs ?? DEFAULT_LATENCY_ESTIMATE_MS;
  const latency = new Map(agents.map((agent) => [agent.agentId, usable(agent.latencyMs) ?? fallback]));
  let total: number;
  switch (mode) {
    case 'SEQUENTIAL':
      total = sum(latency.values());
      break;
    case 'PARALLEL':
      total = Math.max(0, ...latency.values());
      break;
    case 'DAG':
      if (options.plan === undefined) throw new TypeError('a DAG estimate needs the plan from planDag');
      total = criticalPathMs(options.plan, latency, fallback);
      break;
  }
  const aggregator = options.aggregatorLatencyMs === undefined ? 0 : (usable(options.aggregatorLatencyMs) ?? fallback);
  return Math.round(total + aggregator);
}

/** The longest path through the DAG, each node weighted by its latency. */
export function criticalPathMs(plan: DagPlan, latency: ReadonlyMap<string, number>, fallbackMs = DEFAULT_LATENCY_ESTIMATE_MS): number {
  const finish = new Map<string, number>();
  let longest = 0;
  // The topological order guarantees every dependency's finish time is known first.
  for (const node of plan.order) {
    let start = 0;
    for (const dep of plan.dependsOn.get(node) ?? []) start = Math.max(start, finish.get(dep) ?? 0);
    const end = start + (latency.get(node) ?? fallbackMs);
    finish.set(node, end);
    longest = Math.max(longest, end);
  }
  return longest;
}

function usable(ms: number | undefined): number | undefined {
  return ms !== undefined && Number.isFinite(ms) && ms >= 0 ? ms : undefined;
}

function sum(values: Iterable<number>): number {
  let total = 0;
  for (const value of values) total += value;
  return total;
}
