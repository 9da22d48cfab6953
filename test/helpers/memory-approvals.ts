/** An in-memory approval store: pending → decided once, as the SQL adapter's conditional update does. */
import type { ApprovalRecord, ApprovalStatus } from '../../src/domain/workflows.js';
import type { ApprovalStore } from '../../src/ports/approvals.js';

export class MemoryApprovals implements Pick<ApprovalStore, 'create' | 'decide' | 'getById' | 'cancelPending'> {
  readonly rows = new Map<string, ApprovalRecord>();

  /** Approvals in the order they were requested. */
  get all(): ApprovalRecord[] {
    return [...this.rows.values()];
  }

  async create(record: Omit<ApprovalRecord, 'status' | 'reason' | 'decidedAt'>): Promise<ApprovalRecord> {
    const row: ApprovalRecord = { ...record, status: 'pending', reason: null, decidedAt: null };
    this.rows.set(row.id, row);
    return row;
  }

  async getById(id: string): Promise<ApprovalRecord | null> {
    return this.rows.get(id) ?? null;
  }

  async decide(id: string, status: Exclude<ApprovalStatus, 'pending'>, reason: string | null, at: Date): Promise<ApprovalRecord | null> {
    const row = this.rows.get(id);
    if (row === undefined || row.status !== 'pending') return null;
    const decided: ApprovalRecord = { ...row, status, reason, decidedAt: at };
    this.rows.set(id, decided);
    return decided;
  }

  async cancelPending(executionId: string, at: Date): Promise<number> {
    let count = 0;
    for (const row of this.rows.values()) {
      if (row.executionId !== executionId || row.status !== 'pending') continue;
      this.rows.set(row.id, { ...row, status: 'cancelled', decidedAt: at });
      count++;
    }
    return count;
  }
}
