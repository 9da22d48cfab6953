/** Registered agents: the record every layer shares. */
/**
 * A registered agent (spec §2.2, DESIGN §7). `ownerAccountId` null: global (registered with the
 * operator token, visible to every account); otherwise private to that account.
 */
export interface AgentRecord {
  readonly id: string;
  readonly ownerAccountId: string | null;
  readonly name: string;
  readonly description: string;
  readonly url: string;
  readonly vertical: string;
  readonly capabilities: readonly string[];
  readonly pricingModel: string;
  /** basePrice in integer micro-USD (1 USD = 1,000,000). */
  readonly basePriceMicroUsd: number;
  /** The agent's call budget, sent as metadata.timeout (1000–300000). */
  readonly timeoutMs: number;
  /** Example requests the agent handles, for selection (0–20, each 1–500 characters). */
  readonly examples: readonly string[];
  /** Calls one worker sends this agent at once (1–1000); more wait in a FIFO queue. */
  readonly maxConcurrency: number;
  /**
   * Set for an agent that speaks A2A (docs/a2a.md): the agent card it was registered by, fetched
   * for health; `url` is then the card's JSON-RPC endpoint. Absent or null: Baton's own protocol.
   */
  readonly a2aCardUrl?: string | null;
  readonly createdAt: Date;
  readonly updatedAt: Date;
}
export type NewAgent = Omit<AgentRecord, 'createdAt' | 'updatedAt'>;
/** Fields PATCH may change; absent means unchanged. */
export type AgentPatch = Partial<Omit<NewAgent, 'id' | 'ownerAccountId' | 'a2aCardUrl'>>;
/** Why a registration was refused as a duplicate (so the 409 can say which scope holds the id). */
export type AgentConflict = 'same_scope' | 'global' | 'account';

export const CircuitState = {
  CLOSED: 'closed',
  OPEN: 'open',
  HALF_OPEN: 'half_open',
} as const;
export type CircuitState = (typeof CircuitState)[keyof typeof CircuitState];

/** Statistics one actor keeps; also what selection and estimates read (via the stats board). */
export interface AgentStatsSnapshot {
  readonly agentId: string;
  readonly ownerAccountId: string | null;
  /** From health polling: false after `unhealthyAfter` failed polls in a row. */
  readonly healthy: boolean;
  readonly circuit: CircuitState;
  /** True unless the circuit is closed: selection skips the agent. */
  readonly circuitOpen: boolean;
  /** EWMA of call success (1 success, 0 failure), 0..1; 1 before any call. */
  readonly successRate: number;
  /** EWMA of successful call latency in ms; null before the first success. */
  readonly latencyMs: number | null;
  readonly consecutiveFailures: number;
  readonly inFlight: number;
  readonly queued: number;
  readonly calls: number;
  readonly failures: number;
  /** Epoch ms of the last completed health poll; null before the first. */
  readonly lastHealthCheckAtMs: number | null;
  readonly lastHealthError: string | null;
}
