/** Port: workflow definitions. */
import { type WorkflowDefinition, type WorkflowRecord } from '../domain/workflows.js';

export interface WorkflowStore {
  /** Inserts unless this owner already has the slug. */
  create(accountId: string | null, definition: WorkflowDefinition): Promise<WorkflowRecord | null>;
  /** The definition of exactly this owner (null: global). */
  getOwned(accountId: string | null, slug: string): Promise<WorkflowRecord | null>;
  /** What an account sees under a slug: its own first, then a global one. */
  getVisible(accountId: string, slug: string): Promise<WorkflowRecord | null>;
  /** Every definition an account sees (its own shadow global ones of the same slug), by slug. */
  listVisible(accountId: string | null): Promise<WorkflowRecord[]>;
  update(accountId: string | null, definition: WorkflowDefinition): Promise<WorkflowRecord | null>;
  delete(accountId: string | null, slug: string): Promise<boolean>;
}
