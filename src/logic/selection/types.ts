/** Plain data shapes of the selection engine; no behaviour lives here. */

export interface AgentPricing {
  readonly model: string;
  readonly basePrice: number;
}

/** What selection reads of a registered agent. */
export interface CatalogAgent {
  readonly id: string;
  readonly name: string;
  readonly description: string;
  readonly vertical: string;
  readonly capabilities: readonly string[];
  /** Example requests the agent handles (its owner's words); absent or empty when none. */
  readonly examples?: readonly string[];
  readonly pricing?: AgentPricing;
}

/** Runtime statistics kept by an agent's actor. */
export interface AgentRuntimeStats {
  readonly healthy: boolean;
  readonly circuitOpen: boolean;
  /** EWMA of call success, 0..1. */
  readonly successRate: number;
}

export interface SelectionCriteria {
  readonly verticals?: readonly string[];
  readonly requiredCapabilities?: readonly string[];
  readonly maxAgents?: number;
  readonly minConfidence?: number;
}

export interface SelectionRequest {
  readonly query: string;
  readonly context?: unknown;
  readonly selectionCriteria?: SelectionCriteria;
}

export const SELECTION_DEFAULTS = { maxAgents: 5, minConfidence: 0.7 } as const;

/** Stats assumed for an agent the caller knows nothing about yet (just registered: selectable at once). */
export const UNKNOWN_AGENT_STATS: AgentRuntimeStats = { healthy: true, circuitOpen: false, successRate: 1 };

export type StatsLookup = ReadonlyMap<string, AgentRuntimeStats>;

export interface SelectedAgent {
  readonly agent: CatalogAgent;
  readonly confidence: number;
}

export const CandidateStatus = {
  SELECTED: 'selected',
  FILTERED_VERTICAL: 'filtered_vertical',
  FILTERED_CAPABILITY: 'filtered_capability',
  UNHEALTHY: 'unhealthy',
  CIRCUIT_OPEN: 'circuit_open',
  BELOW_MIN_CONFIDENCE: 'below_min_confidence',
  BEYOND_MAX_AGENTS: 'beyond_max_agents',
} as const;
export type CandidateStatus = (typeof CandidateStatus)[keyof typeof CandidateStatus];

/** Query words (as the user wrote them) that matched, per agent field. */
export interface FieldMatches {
  readonly name: readonly string[];
  readonly capabilities: readonly string[];
  readonly vertical: readonly string[];
  readonly description: readonly string[];
  readonly examples: readonly string[];
}

export interface CandidateSignalsView {
  /** Lexical relevance 0..1 (score.ts). */
  readonly text: number;
  /** Cosine of the request's and the agent's meaning vectors (dense.ts), about −0.2..1. */
  readonly meaning: number;
  /** Cosine with the agent's closest example request; null for an agent without examples. */
  readonly example: number | null;
  /** That example's text; null for an agent without examples. */
  readonly matchedExample: string | null;
  /** The clause of the request this agent was scored on; null when on the whole request. */
  readonly clause: string | null;
}

export interface CandidateExplanation {
  readonly agentId: string;
  readonly status: CandidateStatus;
  readonly selected: boolean;
  /** Final confidence 0..1 (0 for an agent filtered out before scoring): relevance × reliability. */
  readonly confidence: number;
  /** Calibrated relevance 0..1 (calibration.ts) before the reliability factor. */
  readonly relevance: number;
  readonly reliability: number;
  /** The main inputs of `relevance`, from the reading of the request that gave it. */
  readonly signals: CandidateSignalsView;
  readonly matches: FieldMatches;
  readonly reasons: readonly string[];
}

export interface SelectionResult {
  /** Highest confidence first; empty means NO_AGENTS_AVAILABLE. */
  readonly selected: readonly SelectedAgent[];
  readonly criteria: Required<Pick<SelectionCriteria, 'maxAgents' | 'minConfidence'>> &
    Pick<SelectionCriteria, 'verticals' | 'requiredCapabilities'>;
}

export interface SelectionPreview extends SelectionResult {
  /** Every catalog agent, best score first, with why it was or was not selected. */
  readonly candidates: readonly CandidateExplanation[];
}
