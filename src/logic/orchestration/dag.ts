/**
 * DAG mode (DESIGN §7): a request's `dependencies` object `{ agentId: [agentIds it waits for] }`
 * is checked against the selected agents and planned once; the ExecutionActor then asks
 * `nextSteps` after every agent finishes which nodes may start.
 *
 * Failure rule: a node whose dependency failed (or was itself skipped for that reason) never
 * runs; it fails with DEPENDENCY_FAILED naming the dependency, because running it without one of
 * its inputs would hand the agent an incomplete `input.context.inputs` it cannot detect. Nodes on
 * other branches keep running, so a DAG with a failed branch still COMPLETES with that branch's
 * failures in `result.details` (outcome.ts).
 */
import { invalidRequest, RunErrorCode, type ApiError } from '../../domain/errors.js';

export type Dependencies = Readonly<Record<string, readonly string[]>>;

export interface DagPlan {
  /** Every selected agent, in selection order. */
  readonly nodes: readonly string[];
  /** A topological order: dependencies first, ties in selection order. */
  readonly order: readonly string[];
  /** Direct dependencies of each node (deduplicated, in the order given). */
  readonly dependsOn: ReadonlyMap<string, readonly string[]>;
  /** Direct dependents of each node. */
  readonly dependents: ReadonlyMap<string, readonly string[]>;
}

export type DagProblem = 'invalid_shape' | 'unknown_agent' | 'self_dependency' | 'cycle';

export type DagCheck =
  | { readonly ok: true; readonly plan: DagPlan }
  | {
      readonly ok: false;
      readonly problem: DagProblem;
      /** Dotted path of the offending field, for 400 INVALID_REQUEST. */
      readonly field: string;
      readonly message: string;
      /** For `cycle`: the nodes around it, the first repeated at the end (a → b → a). */
      readonly cycle?: readonly string[];
    };

/**
 * Validates `dependencies` against the selected agent ids and plans the run. Absent or empty
 * dependencies: every node is a root (the DAG degenerates to PARALLEL).
 */
export function planDag(agentIds: readonly string[], dependencies: unknown): DagCheck {
  const selected = new Set(agentIds);
  const dependsOn = new Map<string, string[]>(agentIds.map((id) => [id, []]));
  if (dependencies !== undefined && dependencies !== null) {
    if (typeof dependencies !== 'object' || Array.isArray(dependencies)) {
      return problem('invalid_shape', 'dependencies', "'dependencies' must be an object mapping agent ids to arrays of agent ids");
    }
    for (const [node, deps] of Object.entries(dependencies)) {
      const field = `dependencies.${node}`;
      if (!selected.has(node)) {
        return problem('unknown_agent', field, `'${field}' names agent '${node}', which is not among the selected agents (${list(agentIds)})`);
      }
      if (!Array.isArray(deps)) return problem('invalid_shape', field, `'${field}' must be an array of agent ids`);
      const own = dependsOn.get(node) ?? [];
      for (const dep of deps as unknown[]) {
        if (typeof dep !== 'string') return problem('invalid_shape', field, `'${field}' must contain agent id strings`);
        if (dep === node) return problem('self_dependency', field, `Agent '${node}' cannot depend on itself`);
        if (!selected.has(dep)) {
          return problem('unknown_agent', field, `'${field}' waits for '${dep}', which is not among the selected agents (${list(agentIds)})`);
        }
        if (!own.includes(dep)) own.push(dep);
      }
    }
  }

  const dependents = new Map<string, string[]>(agentIds.map((id) => [id, []]));
  for (const [node, deps] of dependsOn) for (const dep of deps) dependents.get(dep)?.push(node);

  const order = topologicalOrder(agentIds, dependsOn, dependents);
  if (order.length < agentIds.length) {
    const cycle = findCycle(agentIds, dependsOn);
    const first = cycle[0] ?? '';
    return {
      ok: false,
      problem: 'cycle',
      field: `dependencies.${first}`,
      message: `'dependencies' has a cycle: ${cycle.join(' → ')} waits for itself`,
      cycle,
    };
  }
  return { ok: true, plan: { nodes: [...agentIds], order, dependsOn, dependents } };
}

/** `planDag` for the request path: the plan, or throws 400 INVALID_REQUEST naming the field. */
export function planDagOrThrow(agentIds: readonly string[], dependencies: unknown): DagPlan {
  const check = planDag(agentIds, dependencies);
  if (!check.ok) throw dagError(check);
  return check.plan;
}

export function dagError(check: Extract<DagCheck, { ok: false }>): ApiError {
  return invalidRequest(check.field, check.message);
}

function problem(kind: DagProblem, field: string, message: string): DagCheck {
  return { ok: false, problem: kind, field, message };
}

function list(ids: readonly string[]): string {
  return ids.length === 0 ? 'none' : ids.map((id) => `'${id}'`).join(', ');
}

/** Kahn's algorithm; always takes the earliest-selected ready node so the order is deterministic. */
function topologicalOrder(
  nodes: readonly string[],
  dependsOn: ReadonlyMap<string, readonly string[]>,
  dependents: ReadonlyMap<string, readonly string[]>,
): string[] {
  const rank = new Map(nodes.map((id, i) => [id, i]));
  const waiting = new Map(nodes.map((id) => [id, dependsOn.get(id)?.length ?? 0]));
  const ready = nodes.filter((id) => waiting.get(id) === 0);
  const order: string[] = [];
  while (ready.length > 0) {
    ready.sort((a, b) => (rank.get(a) ?? 0) - (rank.get(b) ?? 0));
    const next = ready.shift() as string;
    order.push(next);
    for (const dependent of dependents.get(next) ?? []) {
      const left = (waiting.get(dependent) ?? 0) - 1;
      waiting.set(dependent, left);
      if (left === 0) ready.push(dependent);
    }
  }
  return order;
}

/** A cycle among the nodes (called only when one exists), by depth-first search along dependencies. */
function findCycle(nodes: readonly string[], dependsOn: ReadonlyMap<string, readonly string[]>): string[] {
  const state = new Map<string, 'active' | 'done'>();
  const stack: string[] = [];
  const visit = (node: string): string[] | null => {
    state.set(node, 'active');
    stack.push(node);
    for (const dep of dependsOn.get(node) ?? []) {
      const seen = state.get(dep);
      if (seen === 'active') return [...stack.slice(stack.indexOf(dep)), dep];
      if (seen === undefined) {
        const found = visit(dep);
        if (found) return found;
      }
    }
    stack.pop();
    state.set(node, 'done');
    return null;
  };
  for (const node of nodes) {
    if (state.has(node)) continue;
    const found = visit(node);
    if (found) return found;
  }
  return [];
}

// --- scheduling -------------------------------------------------------------------------------

/** Where a run stands: which nodes started, and how the finished ones ended. */
export interface DagProgress {
  /** Nodes that started (running or finished). */
  readonly started: ReadonlySet<string>;
  readonly completed: ReadonlySet<string>;
  /** Nodes that failed, including those already marked failed by a previous `nextSteps` skip. */
  readonly failed: ReadonlySet<string>;
}

export interface BlockedNode {
  readonly agentId: string;
  /** The direct dependencies that failed or were blocked themselves. */
  readonly failedDependencies: readonly string[];
}

export interface DagSteps {
  /** Not started, every dependency completed: start these now. */
  readonly ready: readonly string[];
  /**
   * Not started and never will: some dependency failed, directly or further up (the whole chain
   * is returned at once). Record each as failed with `dependencyFailedError`.
   */
  readonly blocked: readonly BlockedNode[];
  /** True when every node has finished or is blocked: nothing is running or left to start. */
  readonly done: boolean;
}

/** Which nodes may start now, and which can never start because a dependency failed. */
export function nextSteps(plan: DagPlan, progress: DagProgress): DagSteps {
  const ready: string[] = [];
  const blocked: BlockedNode[] = [];
  const doomed = new Set<string>();
  let unfinished = 0;
  for (const node of plan.order) {
    const finished = progress.completed.has(node) || progress.failed.has(node);
    if (progress.started.has(node) || finished) {
      if (!finished) unfinished += 1;
      continue;
    }
    const deps = plan.dependsOn.get(node) ?? [];
    const failedDeps = deps.filter((dep) => progress.failed.has(dep) || doomed.has(dep));
    if (failedDeps.length > 0) {
      doomed.add(node);
      blocked.push({ agentId: node, failedDependencies: failedDeps });
      continue;
    }
    unfinished += 1;
    if (deps.every((dep) => progress.completed.has(dep))) ready.push(node);
  }
  return { ready, blocked, done: unfinished === 0 };
}

/** The error a blocked node is recorded with. */
export function dependencyFailedError(node: BlockedNode): { readonly code: typeof RunErrorCode.DEPENDENCY_FAILED; readonly message: string } {
  const names = node.failedDependencies.map((id) => `'${id}'`).join(', ');
  return {
    code: RunErrorCode.DEPENDENCY_FAILED,
    message: `Agent '${node.agentId}' did not run because ${node.failedDependencies.length > 1 ? 'its dependencies' : 'its dependency'} ${names} failed`,
  };
}

/** `input.context.inputs` for a node: each dependency's output under its agent id. */
export function dagInputs(
  plan: DagPlan,
  node: string,
  outputs: ReadonlyMap<string, unknown>,
): Readonly<Record<string, unknown>> {
  // fromEntries defines own properties, so an agent id such as '__proto__' stays a plain key.
  return Object.fromEntries((plan.dependsOn.get(node) ?? []).map((dep) => [dep, outputs.get(dep)]));
}
