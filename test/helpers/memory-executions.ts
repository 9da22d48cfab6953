/**
 * An in-memory execution store for in-process actor tests: conditional transitions as the SQL
 * adapter does them, every transition and progress write recorded, and writes that can be made to
 * fail (`failTransition`) to stand for a store outage or a value the store refuses.
 */
import type { ExecutionAgent, ExecutionPatch, ExecutionProgress, ExecutionRecord, ExecutionStatusName } from '../../src/domain/executions.js';
import type { ExecutionStore } from '../../src/ports/executions.js';

export interface RecordedTransition {
  readonly status: ExecutionStatusName;
  readonly patch: ExecutionPatch;
}

export class MemoryExecutions implements Pick<ExecutionStore, 'transition' | 'updateProgress' | 'getById'> {
  readonly rows = new Map<string, ExecutionRecord>();
  /** Transitions that changed a row, in the order they were written. */
  readonly transitions: RecordedTransition[] = [];
  readonly progress: ExecutionProgress[] = [];
  /** Returns an error to throw for this transition attempt, or null to let it through. */
  failTransition: (status: ExecutionStatusName, attempt: number) => Error | null = () => null;
  readonly #attempts = new Map<ExecutionStatusName, number>();

  add(record: ExecutionRecord): ExecutionRecord {
    this.rows.set(record.id, record);
    return record;
  }

  /** Attempts made at a transition to `status`, failed ones included. */
  attempts(status: ExecutionStatusName): number {
    return this.#attempts.get(status) ?? 0;
  }

  async transition(id: string, from: readonly ExecutionStatusName[], status: ExecutionStatusName, patch: ExecutionPatch): Promise<ExecutionRecord | null> {
    const attempt = this.attempts(status) + 1;
    this.#attempts.set(status, attempt);
    const error = this.failTransition(status, attempt);
    if (error !== null) throw error;
    const row = this.rows.get(id);
    if (row === undefined || !from.includes(row.status)) return null;
    const next: ExecutionRecord = { ...row, ...patch, status };
    this.rows.set(id, next);
    this.transitions.push({ status, patch });
    return next;
  }

  async updateProgress(id: string, progress: ExecutionProgress): Promise<void> {
    const row = this.rows.get(id);
    if (row === undefined || row.status !== 'RUNNING') return;
    this.rows.set(id, { ...row, progress });
    this.progress.push(progress);
  }

  async getById(id: string): Promise<ExecutionRecord | null> {
    return this.rows.get(id) ?? null;
  }
}

/** A PENDING execution of `agents` (each priced 1000 micro-USD) as the service records it. */
export function pendingExecution(id: string, agents: readonly string[], overrides: Partial<ExecutionRecord> = {}): ExecutionRecord {
  const selectedAgents: ExecutionAgent[] = agents.map((agent) => ({ id: agent, name: agent, vertical: 'testing', confidence: 0.9, estimatedCostMicros: 1000 }));
  return {
    id,
    accountId: 'acc_1',
    status: 'PENDING',
    query: 'what is up',
    context: {},
    mode: 'PARALLEL',
    aggregation: 'merge',
    customAggregator: null,
    dependencies: null,
    selectedAgents,
    timeoutMs: 5_000,
    maxCostMicros: null,
    fees: { tier: 'DEVELOPER', feeBasisPoints: null },
    webhook: null,
    estimatedCostMicros: 1000 * agents.length,
    estimatedDurationMs: 100,
    progress: null,
    result: null,
    error: null,
    actualCostMicros: null,
    actualDurationMs: null,
    agentsUsed: null,
    createdAt: new Date(0).toISOString(),
    startedAt: null,
    completedAt: null,
    ...overrides,
  };
}
