/**
 * Selection. Pure: the catalog index and runtime stats come in as arguments, nothing is read from
 * or written to the outside. For each request (docs/selection.md explains the method):
 *   1. the gate: agents outside the `verticals` (any of) or lacking a `requiredCapabilities` entry
 *      (all of), unhealthy or circuit-open, are out;
 *   2. text relevance (score.ts) and meaning similarity (dense.ts) of every other agent, for the
 *      whole request and, when it has several clauses ("X, then Y"), for each clause on its own;
 *   3. calibrated relevance (calibration.ts): the whole request's, or clauseWeight × the best
 *      clause's, whichever is higher;
 *   4. confidence = relevance × reliability (score.ts: 0.8 + 0.2 · success rate);
 *   5. agents at or above `minConfidence`, best first, at most `maxAgents`; ties by catalog order.
 */
import type { CatalogIndex } from './catalog.js';
import { FIELD_NAMES } from './catalog.js';
import { analyzeQuery, splitClauses } from './query.js';
import type { AnalyzedQuery, TermGroup } from './query.js';
import { CALIBRATION, logitAt, logitFloor, sigmoid, signalContext } from './calibration.js';
import type { Calibration, SignalContext } from './calibration.js';
import { exampleSimilaritiesMany, meaningSimilaritiesMany, requestMeaning, standout } from './meaning.js';
import type { ExampleMatches } from './meaning.js';
import { agentRelevance, bestEvidence, computeEvidence, relevanceOf, reliabilityOf } from './score.js';
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
  /** Calibrated relevance (calibration.ts), before reliability. */
  readonly relevance: number;
  /** Lexical relevance and meaning similarity, the main inputs of `relevance`. */
  readonly text: number;
  readonly meaning: number;
  /** Cosine with the agent's closest example in that reading (0 without examples). */
  readonly example: number;
  /** Row of the agent's closest example (catalog.ts) in that reading; −1 without examples. */
  readonly exampleRow: number;
  /** The clause whose reading gave `relevance`; undefined when the whole request did. */
  readonly clause: string | undefined;
  readonly reliability: number;
  readonly confidence: number;
}

/** One reading of the request: the whole of it, or one of its clauses ("X, then Y"). */
export interface SignalView {
  /** Text, meaning and standout per agent (0 for agents that did not pass the gate). */
  readonly signals: SignalContext;
  /** Each agent's closest example in this reading. */
  readonly examples: ExampleMatches;
  /** The clause's text; undefined for the whole request. */
  readonly clause: string | undefined;
}

/** Every agent's inputs for a request (calibration.ts), for scoring, explaining and fitting. */
export interface CandidateSignals {
  readonly criteria: EffectiveCriteria;
  /** Gate outcome per agent: undefined when it passed the filters and health checks. */
  readonly status: readonly (CandidateStatus | undefined)[];
  /** Agents that passed the gate, in catalog order. */
  readonly eligible: readonly number[];
  /** views[0] is the whole request; the others are its clauses when it has more than one. */
  readonly views: readonly SignalView[];
  readonly matches: Map<number, string[][]> | undefined;
}

/** At most this many clauses are read on their own; longer requests are rare and the rest still count as a whole. */
const MAX_CLAUSE_VIEWS = 3;

export function candidateSignals(
  index: CatalogIndex,
  stats: StatsLookup,
  request: SelectionRequest,
  explain = false,
  params: ScoringParams = SCORING,
  calibration: Calibration = CALIBRATION,
): CandidateSignals {
  const criteria = effectiveCriteria(request);
  const analyzed = analyzeQuery(index, request.query, request.context);
  const ev = computeEvidence(index, withCriteriaTerms(index, analyzed, criteria), explain, params);
  const n = index.agents.length;
  const status: (CandidateStatus | undefined)[] = new Array<CandidateStatus | undefined>(n);
  const eligible: number[] = [];
  for (let i = 0; i < n; i += 1) {
    status[i] = gate(index, i, criteria, stats);
    if (status[i] === undefined) eligible.push(i);
  }
  const best = bestEvidence(ev, eligible);
  const text = new Float64Array(n);
  for (const a of ev.touched) if (status[a] === undefined) text[a] = agentRelevance(ev, a, best, params);
  const clauses = ev.clauseEvidence !== undefined && calibration.clauseWeight > 0 ? splitClauses(request.query).slice(0, MAX_CLAUSE_VIEWS) : [];
  // Every reading's meaning vector first, so that the agents' and the examples' matrices are each
  // streamed once per request, not once per reading (meaning.ts).
  const vectors = [
    requestMeaning(index, request.query, analyzed.language, request.context),
    ...clauses.map((clause) => requestMeaning(index, clause, analyzed.language)),
  ];
  const meanings = meaningSimilaritiesMany(index, vectors, eligible);
  const exampleMatches = exampleSimilaritiesMany(index, vectors, eligible);
  const meaning = meanings[0] as Float64Array;
  const examples = exampleMatches[0] as ExampleMatches;
  const views: SignalView[] = [
    { signals: signalContext(text, meaning, standout(index, meaning, eligible), eligible, examples), examples, clause: undefined },
  ];
  clauses.forEach((clause, c) => {
    const clauseText = new Float64Array(n);
    const ce = ev.clauseEvidence as Float64Array;
    for (const a of ev.touched) {
      const e = ce[c * n + a] ?? 0;
      if (e > 0 && status[a] === undefined) clauseText[a] = relevanceOf(e, best.clauses[c] ?? 0, params);
    }
    const clauseMeaning = meanings[c + 1] as Float64Array;
    const clauseExamples = exampleMatches[c + 1] as ExampleMatches;
    views.push({
      signals: signalContext(clauseText, clauseMeaning, standout(index, clauseMeaning, eligible), eligible, clauseExamples),
      examples: clauseExamples,
      clause,
    });
  });
  return { criteria, status, eligible, views, matches: ev.matches };
}

/** Weight of each view's relevance: 1 for the whole request, clauseWeight for a clause. */
function viewWeight(i: number, calibration: Calibration): number {
  return i === 0 ? 1 : calibration.clauseWeight;
}

/**
 * Calibrated relevance of agent `a`: the whole request's, or clauseWeight × that of the clause it
 * explains best, whichever is higher, so an agent that clearly handles one part of "X, then Y" is
 * selected with the one that handles the other. `floors[i]` is the logit view i must reach to
 * matter (selection skips the exponentials of agents that cannot qualify); returns undefined when
 * no view reaches its floor.
 */
function bestRelevance(
  c: CandidateSignals,
  a: number,
  calibration: Calibration,
  floors: readonly number[],
): { relevance: number; view: SignalView } | undefined {
  let best: { relevance: number; view: SignalView } | undefined;
  for (let i = 0; i < c.views.length; i += 1) {
    const view = c.views[i] as SignalView;
    const z = logitAt(view.signals, a, calibration);
    if (z < (floors[i] ?? -Infinity)) continue;
    const relevance = viewWeight(i, calibration) * sigmoid(z);
    if (best === undefined || relevance > best.relevance) best = { relevance, view };
  }
  return best;
}

function score(
  index: CatalogIndex,
  stats: StatsLookup,
  request: SelectionRequest,
  explain: boolean,
  params: ScoringParams,
  calibration: Calibration,
): { criteria: EffectiveCriteria; scored: Scored[]; matches: Map<number, string[][]> | undefined } {
  const c = candidateSignals(index, stats, request, explain, params, calibration);
  const whole = c.views[0];
  const scored: Scored[] = [];
  const considered: readonly number[] = explain ? index.agents.map((_, i) => i) : c.eligible;
  // Selection only needs the agents that can qualify (reliability ≤ 1, so relevance must reach
  // minConfidence); the preview shows every agent.
  const floor = explain ? -Infinity : c.criteria.minConfidence;
  const floors = c.views.map((_, i) => (explain ? -Infinity : logitFloor(floor, viewWeight(i, calibration))));
  for (const i of considered) {
    const s = c.status[i];
    const best = s === undefined ? bestRelevance(c, i, calibration, floors) : undefined;
    if (best === undefined && !explain) continue;
    const entry = index.agents[i];
    const rate = (entry !== undefined ? stats.get(entry.agent.id) : undefined) ?? UNKNOWN_AGENT_STATS;
    const reliability = reliabilityOf(rate.successRate);
    const relevance = best?.relevance ?? 0;
    const confidence = relevance * reliability;
    if (confidence < floor) continue;
    const view = best?.view ?? whole;
    scored.push({
      agent: i,
      status: s,
      relevance,
      text: view?.signals.text[i] ?? 0,
      meaning: view?.signals.meaning[i] ?? 0,
      example: view?.signals.example[i] ?? 0,
      exampleRow: view?.examples.row[i] ?? -1,
      clause: best?.view.clause,
      reliability,
      confidence,
    });
  }
  // Ties fall back to catalog order, which keeps selection deterministic.
  scored.sort((a, b) => b.confidence - a.confidence || a.agent - b.agent);
  return { criteria: c.criteria, scored, matches: c.matches };
}

/** Selects agents for a request: highest confidence first, empty when none qualifies. */
export function selectAgents(
  index: CatalogIndex,
  stats: StatsLookup,
  request: SelectionRequest,
  params: ScoringParams = SCORING,
  calibration: Calibration = CALIBRATION,
): SelectionResult {
  const { criteria, scored } = score(index, stats, request, false, params, calibration);
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

const NO_MATCHES: FieldMatches = { name: [], capabilities: [], vertical: [], description: [], examples: [] };

function fieldMatches(perField: string[][] | undefined): FieldMatches {
  if (perField === undefined) return NO_MATCHES;
  const [name = [], capabilities = [], vertical = [], description = [], examples = []] = perField;
  return { name, capabilities, vertical, description, examples };
}

/** Reasons quote at most this much of an example; the whole text is in `signals.matchedExample`. */
const QUOTED_EXAMPLE_LENGTH = 120;

function quote(text: string): string {
  return text.length <= QUOTED_EXAMPLE_LENGTH ? text : `${text.slice(0, QUOTED_EXAMPLE_LENGTH - 1)}…`;
}

/** Like selectAgents, and explains the outcome for every agent of the catalog. */
export function previewSelection(
  index: CatalogIndex,
  stats: StatsLookup,
  request: SelectionRequest,
  params: ScoringParams = SCORING,
  calibration: Calibration = CALIBRATION,
): SelectionPreview {
  const { criteria, scored, matches } = score(index, stats, request, true, params, calibration);
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
    const exampleText = s.exampleRow >= 0 ? index.examples?.texts[s.exampleRow] : undefined;
    const exampleCosine = s.exampleRow >= 0 && s.status === undefined ? s.example : undefined;
    if (s.status === undefined) {
      reasons.push(
        `text relevance ${s.text.toFixed(3)}, meaning similarity ${s.meaning.toFixed(3)}` +
          (s.clause !== undefined ? ` for the part "${s.clause.trim()}"` : ''),
      );
      if (exampleText !== undefined) reasons.push(`closest example (similarity ${s.example.toFixed(3)}): "${quote(exampleText)}"`);
    }
    let status: CandidateStatus;
    if (s.status !== undefined) {
      status = s.status;
      reasons.push(explainGate(s.status, entry.agent.vertical, criteria));
    } else if (s.confidence < criteria.minConfidence) {
      status = CandidateStatus.BELOW_MIN_CONFIDENCE;
      reasons.push(`confidence ${s.confidence.toFixed(3)} is below minConfidence ${criteria.minConfidence}`);
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
      signals: {
        text: round(s.text),
        meaning: round(s.meaning),
        example: exampleCosine !== undefined ? round(exampleCosine) : null,
        matchedExample: exampleCosine !== undefined ? (exampleText ?? null) : null,
        clause: s.clause?.trim() ?? null,
      },
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
