/** Port: workflow runs and their checkpoints. */
import { type RunCheckpoint, type WorkflowRunPatch, type WorkflowRunRecord, type WorkflowRunStatus } from '../domain/workflows.js';
import { InvalidListCursor, type NewestFirstPage, type NewestFirstQuery } from './list-query.js';

/**
 * Workflow runs. A run has an owner (a worker instance) holding a lease; the owner renews it, and
 * a worker that finds a running run with a lapsed lease takes it over (DESIGN §9).
 */
export interface WorkflowRunStore {
  insert(record: WorkflowRunRecord, owner: string, leaseMs: number): Promise<void>;
  get(accountId: string, id: string): Promise<WorkflowRunRecord | null>;
  getById(id: string): Promise<WorkflowRunRecord | null>;
  /** Conditional status change (null when the run was not in one of `from`). */
  transition(id: string, from: readonly WorkflowRunStatus[], status: WorkflowRunStatus, patch: WorkflowRunPatch): Promise<WorkflowRunRecord | null>;
  /** Sets (or clears) the checkpoint of a running run. */
  saveCheckpoint(id: string, checkpoint: RunCheckpoint | null): Promise<void>;
  /** Extends the lease of every running run of `owner`. */
  renewLeases(owner: string, leaseMs: number): Promise<void>;
  /** Lets other workers take `owner`'s runs paused on an approval at once (graceful hand-over). */
  releasePaused(owner: string): Promise<void>;
  /**
   * Takes over running runs whose lease lapsed (`all`: every running run not owned by `owner`,
   * for embedded mode, where no other worker can exist) and returns them.
   */
  claim(owner: string, leaseMs: number, limit: number, all: boolean): Promise<WorkflowRunRecord[]>;
  /** The account's runs, newest first (throws InvalidListCursor for a foreign cursor). */
  listByAccount(accountId: string, query: NewestFirstQuery<WorkflowRunStatus>): Promise<NewestFirstPage<WorkflowRunRecord>>;
}
