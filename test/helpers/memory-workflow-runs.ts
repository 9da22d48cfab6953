/** An in-memory workflow run store: conditional transitions and checkpoints, as run actors use them. */
import type { RunCheckpoint, WorkflowDefinition, WorkflowRunPatch, WorkflowRunRecord, WorkflowRunStatus } from '../../src/domain/workflows.js';
import type { WorkflowRunStore } from '../../src/ports/workflow-runs.js';

export class MemoryWorkflowRuns implements Pick<WorkflowRunStore, 'transition' | 'saveCheckpoint'> {
  readonly rows = new Map<string, WorkflowRunRecord>();
  /** Every checkpoint written (null: cleared), in order. */
  readonly checkpoints: (RunCheckpoint | null)[] = [];

  add(record: WorkflowRunRecord): WorkflowRunRecord {
    this.rows.set(record.id, record);
    return record;
  }

  async transition(id: string, from: readonly WorkflowRunStatus[], status: WorkflowRunStatus, patch: WorkflowRunPatch): Promise<WorkflowRunRecord | null> {
    const row = this.rows.get(id);
    if (row === undefined || !from.includes(row.status)) return null;
    const next: WorkflowRunRecord = { ...row, ...patch, status };
    this.rows.set(id, next);
    return next;
  }

  async saveCheckpoint(id: string, checkpoint: RunCheckpoint | null): Promise<void> {
    const row = this.rows.get(id);
    if (row === undefined || row.status !== 'running') return;
    this.rows.set(id, { ...row, checkpoint });
    this.checkpoints.push(checkpoint);
  }
}

/** A running run of `workflow` on `task`, as the service records it before starting its actor. */
export function runningRun(id: string, workflow: WorkflowDefinition, task = 'do the thing'): WorkflowRunRecord {
  return {
    id,
    accountId: 'acc_1',
    status: 'running',
    workflow,
    task,
    metadata: {},
    conversationId: null,
    finalAnswer: null,
    error: null,
    checkpoint: null,
    createdAt: new Date(0).toISOString(),
    completedAt: null,
  };
}
