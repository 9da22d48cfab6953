/** Port: durable executions. */
import { type ExecutionPatch, type ExecutionRecord, type ExecutionStatusName } from '../domain/executions.js';
import { InvalidListCursor, type NewestFirstPage, type NewestFirstQuery } from './list-query.js';

export interface ExecutionStore {
  /**
   * Durably records a new execution; concurrent calls are committed together (group commit).
   * With an idempotency key the key is recorded on the same row: resolves null once recorded, or
   * with the execution that already holds the key (nothing recorded then).
   */
  insert(record: ExecutionRecord, idempotencyKey?: string | null): Promise<ExecutionRecord | null>;
  /** The account's execution recorded with this idempotency key, if any. */
  getByIdempotencyKey(accountId: string, key: string): Promise<ExecutionRecord | null>;
  /** The execution if it belongs to the account; null otherwise (no cross-account leaks). */
  get(accountId: string, id: string): Promise<ExecutionRecord | null>;
  /** Any account's execution, for the runtime (owner actors, recovery). */
  getById(id: string): Promise<ExecutionRecord | null>;
  /**
   * Moves an execution to `status` only if it is currently in one of `from`; returns the updated
   * record, or null when it was not (another transition won, e.g. a cancel against a completion).
   */
  transition(id: string, from: readonly ExecutionStatusName[], status: ExecutionStatusName, patch: ExecutionPatch): Promise<ExecutionRecord | null>;
  /** Updates progress of a RUNNING execution (best effort; batched). */
  updateProgress(id: string, progress: NonNullable<ExecutionRecord['progress']>): Promise<void>;
  /** Ids of executions still PENDING or RUNNING (for recovery). */
  listLive(limit: number): Promise<Array<{ readonly id: string; readonly status: ExecutionStatusName; readonly updatedAt: Date }>>;
  /** The account's executions, newest first (throws InvalidListCursor for a foreign cursor). */
  listByAccount(accountId: string, query: NewestFirstQuery<ExecutionStatusName>): Promise<NewestFirstPage<ExecutionRecord>>;
}
