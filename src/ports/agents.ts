/** Port: the agent registry. */
import { type AgentConflict, type AgentPatch, type AgentRecord, type NewAgent } from '../domain/agents.js';

export interface AgentListQuery {
  /** Case-insensitive exact match. */
  readonly vertical?: string;
  /** Case-insensitive: agents having this capability. */
  readonly capability?: string;
  readonly limit: number;
  /** Opaque position from a previous page (`nextCursor`); absent: from the start. */
  readonly after?: string;
}
export interface AgentPage {
  readonly agents: readonly AgentRecord[];
  /** Pass as `after` for the next page; null on the last page. */
  readonly nextCursor: string | null;
}
/** `listVisible` was given a cursor it did not issue. */
export class InvalidAgentCursor extends RangeError {
  constructor() {
    super('cursor is not one this service issued');
    this.name = 'InvalidAgentCursor';
  }
}
export interface AgentStore {
  /**
   * Inserts atomically unless the id is taken in what some account would see: in the same scope,
   * by a global agent (for an account's agent) or by any account's agent (for a global one).
   */
  create(agent: NewAgent): Promise<{ readonly created: AgentRecord } | { readonly conflict: AgentConflict }>;
  /** The agent an account (null: the operator) sees under this id: its own first, then global. */
  getVisible(accountId: string | null, id: string): Promise<AgentRecord | null>;
  /** The agent of exactly this owner (null: global), or null. */
  getOwned(ownerAccountId: string | null, id: string): Promise<AgentRecord | null>;
  /** Agents visible to an account (null: global only), in registration order, one page. */
  listVisible(accountId: string | null, query: AgentListQuery): Promise<AgentPage>;
  /** Every agent of every scope, for a worker's in-memory directory. */
  listAll(): Promise<AgentRecord[]>;
  update(ownerAccountId: string | null, id: string, patch: AgentPatch): Promise<AgentRecord | null>;
  delete(ownerAccountId: string | null, id: string): Promise<AgentRecord | null>;
}
