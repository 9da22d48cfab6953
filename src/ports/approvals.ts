/** Port: approval requests of paused workflow runs. */
import { type ApprovalRecord, type ApprovalStatus } from '../domain/workflows.js';

export interface ApprovalStore {
  create(record: Omit<ApprovalRecord, 'status' | 'reason' | 'decidedAt'>): Promise<ApprovalRecord>;
  /** The approval if it belongs to the account (another account's is null). */
  get(accountId: string, id: string): Promise<ApprovalRecord | null>;
  getById(id: string): Promise<ApprovalRecord | null>;
  /** pending → `status`, atomically; null when it was no longer pending (someone decided first). */
  decide(id: string, status: Exclude<ApprovalStatus, 'pending'>, reason: string | null, at: Date): Promise<ApprovalRecord | null>;
  /** An account's approvals with this status, oldest first. */
  list(accountId: string, status: ApprovalStatus, limit: number): Promise<ApprovalRecord[]>;
  /** Marks the run's pending approvals cancelled (the run ended without them). */
  cancelPending(executionId: string, at: Date): Promise<number>;
}
