/**
 * Selection: filters, scoring (formula in score.ts), threshold and cut. Pure: the catalog index
 * and runtime stats come in as arguments, nothing is read from or written to the outside.
 */
import type { CatalogIndex } from './catalog.js';
import { FIELD_NAMES } from './catalog.js';
import { analyzeQuery } from './query.js';
import type { AnalyzedQuery, TermGroup } from './query.js';
import { agentRelevance, bestEvidence, computeEvidence, reliabilityOf } from './score.js';
import type { ScoringParams } from './score.js';
import { SCORING } from './score.js';
import { CandidateStatus, SELECTION_DEFAULTS, UNKNOWN_AGENT_STATS } from './types.js';
import type {
  CandidateExplanation,
  FieldMatches,
  SelectedAgent,
  SelectionPreview,
  SelectionRequest,
  SelectionResult,
  StatsLookup,
} from './types.js';

type EffectiveCriteria = SelectionResult['criteria'];

function effectiveCriteria(request: SelectionRequest): EffectiveCriteria {
  const c = request.selectionCriteria ?? {};
  return {
    maxAgents: c.maxAgents ?? SELECTION_DEFAULTS.maxAgents,
    minConfidence: c.minConfidence ?? SELECTION_DEFAULTS.minConfidence,
    ...(c.verticals !== undefined ? { verticals: c.verticals } : {}),
    ...(c.requiredCapabilities !== undefined ? { requiredCapabilities: c.requiredCapabilities } : {}),
  };
}

/** Why an agent cannot be chosen regardless of the text, or undefined when it can. */
function gate(index: CatalogIndex, agent: number, criteria: EffectiveCriteria, stats: StatsLookup): CandidateStatus | undefined {
  const entry = index.agents[agent];
  if (entry === undefined) return CandidateStatus.FILTERED_VERTICAL;
  const verticals = criteria.verticals;
  if (verticals !== undefined && verticals.length > 0 && !verticals.some((v) => v.toLowerCase() === entry.vertical)) {
    return CandidateStatus.FILTERED_VERTICAL;
  }
  const required = criteria.requiredCapabilities;
  if (required !== undefined && !required.every((c) => entry.capabilities.has(c.toLowerCase()))) {
    return CandidateStatus.FILTERED_CAPABILITY;
  }
  const s = stats.get(entry.agent.id) ?? UNKNOWN_AGENT_STATS;
  if (!s.healthy) return CandidateStatus.UNHEALTHY;
  if (s.circuitOpen) return CandidateStatus.CIRCUIT_OPEN;
  return undefined;
}

/**
 * Required capabilities state what the caller needs as plainly as the query does, so their words
 * join the query (a terse "Check this code" with `test-generation` required is about tests).
 */
function withCriteriaTerms(index: CatalogIndex, query: AnalyzedQuery, criteria: EffectiveCriteria): AnalyzedQuery {
  const required = criteria.requiredCapabilities;
  if (required === undefined || required.length === 0) return query;
  const extra = analyzeQuery(index, required.join(' ').replace(/-/g, ' '), undefined).groups;
  const present = new Set(query.groups.map((g) => g.alternatives[0]?.stem));
  const groups: TermGroup[] = [...query.groups];
  for (const g of extra) if (!present.has(g.alternatives[0]?.stem)) groups.push({ ...g, clause: -1 });
  return { language: query.language, groups, clauses: query.clauses };
}

interface Scored {
  readonly agent: number;
  readonly status: CandidateStatus | undefined;
  readonly relevance: number;
  readonly reliability: number;
  readonly confidence: number;
}

function score(
  index: CatalogIndex,
  stats: StatsLookup,
  request: SelectionRequest,
  explain: boolean,
  params: ScoringParams,
): { criteria: EffectiveCriteria; scored: Scored[]; matches: Map<number, string[][]> | undefined } {
  const criteria = effectiveCriteria(request);
  const query = withCriteriaTerms(index, analyzeQuery(index, request.query, request.context), criteria);
  const ev = computeEvidence(index, query, explain, params);
  const { evidence, matches, touched } = ev;
  // The fast path only needs agents with evidence: the others cannot reach any confidence > 0,
  // which only matters when minConfidence is 0 (then every agent that passes the filters qualifies,
  // as the preview shows).
  const everyAgent = explain || criteria.minConfidence <= 0;
  const considered: readonly number[] = everyAgent ? index.agents.map((_, i) => i) : touched;
  const status = new Map<number, CandidateStatus | undefined>();
  const eligible: number[] = [];
  for (const i of considered) {
    const s = gate(index, i, criteria, stats);
    status.set(i, s);
    if (s === undefined && (evidence[i] ?? 0) > 0) eligible.push(i);
  }
  const best = bestEvidence(ev, eligible);
  const scored: Scored[] = [];
  for (const i of considered) {
    const s = status.get(i);
    if (!explain && s !== undefined) continue;
    const entry = index.agents[i];
    const rate = (entry !== undefined ? stats.get(entry.agent.id) : undefined) ?? UNKNOWN_AGENT_STATS;
    const relevance = s === undefined ? agentRelevance(ev, i, best, params) : 0;
    const reliability = reliabilityOf(rate.successRate);
    scored.push({ agent: i, status: s, relevance, reliability, confidence: relevance * reliability });
  }
  // Ties fall back to catalog order, which keeps selection deterministic.
  scored.sort((a, b) => b.confidence - a.confidence || a.agent - b.agent);
  return { criteria, scored, matches };
}

/** Selects agents for a request: highest confidence first, empty when none qualifies. */
export function selectAgents(
  index: CatalogIndex,
  stats: StatsLookup,
  request: SelectionRequest,
  params: ScoringParams = SCORING,
): SelectionResult {
  const { criteria, scored } = score(index, stats, request, false, params);
  const selected: SelectedAgent[] = [];
  for (const s of scored) {
    if (selected.length >= criteria.maxAgents || s.confidence < criteria.minConfidence) break;
    const entry = index.agents[s.agent];
    if (entry !== undefined) selected.push({ agent: entry.agent, confidence: round(s.confidence) });
  }
  return { selected, criteria };
}

function round(x: number): number {
  return Math.round(x * 1e4) / 1e4;
}

const NO_MATCHES: FieldMatches = { name: [], capabilities: [], vertical: [], description: [] };

function fieldMatches(perField: string[][] | undefined): FieldMatches {
  if (perField === undefined) return NO_MATCHES;
  const [name = [], capabilities = [], vertical = [], description = []] = perField;
  return { name, capabilities, vertical, description };
}

/** Like selectAgents, and explains the outcome for every agent of the catalog. */
export function previewSelection(
  index: CatalogIndex,
  stats: StatsLookup,
  request: SelectionRequest,
  params: ScoringParams = SCORING,
): SelectionPreview {
  const { criteria, scored, matches } = score(index, stats, request, true, params);
  const selected: SelectedAgent[] = [];
  const candidates: CandidateExplanation[] = [];
  for (const s of scored) {
    const entry = index.agents[s.agent];
    if (entry === undefined) continue;
    const m = fieldMatches(matches?.get(s.agent));
    const reasons: string[] = [];
    for (const label of FIELD_NAMES) {
      const words = m[label];
      if (words.length > 0) reasons.push(`matched in ${label}: ${words.join(', ')}`);
    }
    let status: CandidateStatus;
    if (s.status !== undefined) {
      status = s.status;
      reasons.push(explainGate(s.status, entry.agent.vertical, criteria));
    } else if (s.confidence < criteria.minConfidence) {
      status = CandidateStatus.BELOW_MIN_CONFIDENCE;
      reasons.push(
        reasons.length === 0
          ? `no word of the request matches this agent (minConfidence ${criteria.minConfidence})`
          : `confidence ${s.confidence.toFixed(3)} is below minConfidence ${criteria.minConfidence}`,
      );
    } else if (selected.length >= criteria.maxAgents) {
      status = CandidateStatus.BEYOND_MAX_AGENTS;
      reasons.push(`confidence ${s.confidence.toFixed(3)} qualifies, but maxAgents ${criteria.maxAgents} better agents were kept`);
    } else {
      status = CandidateStatus.SELECTED;
      selected.push({ agent: entry.agent, confidence: round(s.confidence) });
      reasons.push(`selected with confidence ${s.confidence.toFixed(3)}`);
    }
    candidates.push({
      agentId: entry.agent.id,
      status,
      selected: status === CandidateStatus.SELECTED,
      confidence: round(s.confidence),
      relevance: round(s.relevance),
      reliability: round(s.reliability),
      matches: m,
      reasons,
    });
  }
  return { selected, criteria, candidates };
}

function explainGate(status: CandidateStatus, vertical: string, criteria: EffectiveCriteria): string {
  switch (status) {
    case CandidateStatus.FILTERED_VERTICAL:
      return `filtered out: vertical "${vertical}" is not one of ${JSON.stringify(criteria.verticals ?? [])}`;
    case CandidateStatus.FILTERED_CAPABILITY:
      return `filtered out: lacks a required capability of ${JSON.stringify(criteria.requiredCapabilities ?? [])}`;
    case CandidateStatus.UNHEALTHY:
      return 'excluded: agent is unhealthy';
    case CandidateStatus.CIRCUIT_OPEN:
      return 'excluded: circuit breaker is open';
    default:
      return status;
  }
}
