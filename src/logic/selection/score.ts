/**
 * Text relevance: how well the words of a request match an agent's name, capabilities, vertical
 * and description (one of the signals of calibration.ts; docs/selection.md has the whole method).
 * Deterministic: the same catalog and request give the same numbers.
 *
 * 1. Analysis (text.ts, query.ts). Query and context are tokenized (English contractions keep
 *    their head word: "we're" → we, not "re"), stop words dropped, words Snowball-stemmed. The query
 *    is also cut into clauses at . ! ? ; : , ( ) and at joining words (and, then, plus, also, as
 *    well as, and their es/fr/de counterparts); each query word belongs to the clause it first
 *    occurs in. The query language (en/es/fr/de) is guessed from stop words; foreign words
 *    are also looked up in a small lexicon (lexicon.ts). A word the catalog lacks may stand for a
 *    catalog word at a discount q (fuzzy.ts): edit distance 1 → 0.9, 2 → 0.75, trigram Dice ≥ 0.6
 *    → min(0.85, Dice), shared stem prefix ≥ 75 % → 0.7, lexicon translation → 0.9; exact → 1.
 *    Typo matching (edit distance, Dice) skips words among the 30,000 most frequent English words
 *    ("thread" is not a typo of "threat"), and a shared prefix makes a family only when the two
 *    words' vectors have cosine ≥ 0.3 ("transcription"/"transcribe" 0.65, "thread"/"threat" 0.01).
 *    An English word the catalog does not know by form, and not among the 1,000 most frequent
 *    English words, may also stand for its 2 nearest catalog words in meaning (word-vectors.ts,
 *    semantic.ts) with cosine ≥ 0.5, at q = cosine; a catalog stem reached this way serves one
 *    request word only. A foreign word goes through its lexicon translations.
 *    Each word is a group; words of `context` weigh w = 0.4, of the query w = 1. The words of
 *    `requiredCapabilities` join the query with w = 1 (they state the need as plainly as the query).
 * 2. Evidence, BM25F (catalog.ts). Fields name, capabilities, vertical, description have weights
 *    2.5, 2, 1.5, 1 and length normalisation b = 0.3, 0.3, 0, 0.6. For stem t and agent a:
 *        tf~(t,a) = Σ_f weight_f · tf_f(t,a) / (1 − b_f + b_f · len_f(a) / avglen_f)
 *        sat(t,a) = tf~ · (k1 + 1) / (k1 + tf~),  k1 = 1.2
 *        idf(t)   = ln(1 + (N − df + 0.5) / (df + 0.5)) / ln(1 + (N − 0.5) / 1.5)
 *    (idf divided by the idf of a stem only one agent has, so it lies in 0..1 whatever N is).
 *        E(a) = Σ_groups w_g · max_{alternative t of g} q_t · idf(t) · sat(t,a)
 *    An agent earns each request word once, through its best alternative. E_c(a) is the same sum
 *    over the query words of clause c and the criteria words (context words support the whole
 *    request, not one clause).
 * 3. Text relevance (0..1), from the agent's evidence and the best evidence E* among agents that
 *    passed the filters:
 *        rel(E, E*)   = (1 − exp(−E / τ)) · (E / E*)^γ,  τ = 1.0, γ = 2
 *        relevance(a) = max( rel(E(a), E*),  λ · max_c rel(E_c(a), E*_c) ),  λ = 0.8
 *    The first factor is absolute: about one strong field match (E ≈ 1.2) gives 0.7, and a request
 *    sharing no informative word with an agent stays near 0. The second keeps agents that match
 *    far less than the best one low. The per-clause term lets an agent that clearly explains its
 *    own part of a multi-part request ("X, then Y") in through that part.
 * τ, γ, λ and the semantic parameters were chosen on half of the shared labeled set when text
 * relevance was the whole score; the calibration now weighs text relevance against meaning.
 */
import { FIELD_NAMES } from './catalog.js';
import type { CatalogIndex } from './catalog.js';
import type { AnalyzedQuery } from './query.js';

export interface ScoringParams {
  /** Evidence at which the absolute factor reaches 1 − 1/e. */
  readonly tau: number;
  /** Exponent of the agent's share of the best evidence. */
  readonly gamma: number;
  /**
   * A clause's relevance counts this much of the whole request's (multi-part requests); 0 = off.
   * Optional so that parameter sets written before it keep type-checking; absent means 0.8.
   */
  readonly clauseWeight?: number;
}

const DEFAULT_CLAUSE_WEIGHT = 0.8;

export const SCORING: ScoringParams = { tau: 1.0, gamma: 2, clauseWeight: DEFAULT_CLAUSE_WEIGHT };

function clauseWeightOf(p: ScoringParams): number {
  return p.clauseWeight ?? DEFAULT_CLAUSE_WEIGHT;
}

/** Evidence E(a) of every agent (step 2), and which words matched which fields when explaining. */
export interface Evidence {
  readonly evidence: Float64Array;
  /** Number of clauses of the query. */
  readonly clauses: number;
  /** E_c(a) at c · n + a, from the query words of clause c and the criteria words; undefined for one clause. */
  readonly clauseEvidence: Float64Array | undefined;
  /** agent → field → matched labels; only filled when asked for. */
  readonly matches: Map<number, string[][]> | undefined;
  /** Agents with evidence > 0, so the fast path never walks the whole catalog. */
  readonly touched: readonly number[];
}

export function computeEvidence(
  index: CatalogIndex,
  query: AnalyzedQuery,
  explain: boolean,
  p: ScoringParams = SCORING,
): Evidence {
  const n = index.agents.length;
  const clauses = query.clauses;
  const evidence = new Float64Array(n);
  const clauseEvidence = clauses > 1 && clauseWeightOf(p) > 0 ? new Float64Array(n * clauses) : undefined;
  const groupBest = new Float64Array(n);
  const groupField = explain ? new Int32Array(n) : undefined;
  const groupLabel: (string | undefined)[] | undefined = explain ? new Array<string | undefined>(n) : undefined;
  const matches = explain ? new Map<number, string[][]>() : undefined;
  const touched: number[] = [];
  const everTouched = new Uint8Array(n);
  const touchedAgents: number[] = [];
  for (const group of query.groups) {
    touched.length = 0;
    for (const alt of group.alternatives) {
      const list = index.postings.get(alt.stem);
      if (list === undefined) continue;
      const factor = group.weight * alt.quality * (index.idf.get(alt.stem) ?? 0);
      for (const posting of list) {
        const a = posting.agent;
        const value = factor * posting.weight;
        const current = groupBest[a] ?? 0;
        if (current === 0) touched.push(a);
        if (value > current) {
          groupBest[a] = value;
          if (groupField !== undefined && groupLabel !== undefined) {
            groupField[a] = posting.fields;
            groupLabel[a] = alt.label;
          }
        }
      }
    }
    // Query words count towards their own clause, criteria words towards every clause; context
    // supports the request as a whole, not one clause of it.
    const from = group.clause >= 0 ? group.clause : group.weight >= 1 ? 0 : clauses;
    const to = group.clause >= 0 ? group.clause + 1 : clauses;
    for (const a of touched) {
      const value = groupBest[a] ?? 0;
      evidence[a] = (evidence[a] ?? 0) + value;
      if (clauseEvidence !== undefined) for (let c = from; c < to; c += 1) clauseEvidence[c * n + a] = (clauseEvidence[c * n + a] ?? 0) + value;
      groupBest[a] = 0;
      if (everTouched[a] === 0) {
        everTouched[a] = 1;
        touchedAgents.push(a);
      }
      if (matches !== undefined && groupField !== undefined && groupLabel !== undefined) {
        let perField = matches.get(a);
        if (perField === undefined) {
          perField = FIELD_NAMES.map(() => []);
          matches.set(a, perField);
        }
        const fields = groupField[a] ?? 0;
        const label = groupLabel[a] ?? '';
        perField.forEach((labels, f) => {
          if ((fields & (1 << f)) !== 0) labels.push(label);
        });
      }
    }
  }
  return { evidence, clauses, clauseEvidence, matches, touched: touchedAgents };
}

/** The best evidence among the agents that passed the filters, whole request and per clause. */
export interface BestEvidence {
  readonly whole: number;
  readonly clauses: Float64Array;
}

export function bestEvidence(ev: Evidence, eligible: readonly number[]): BestEvidence {
  const n = ev.evidence.length;
  const ce = ev.clauseEvidence;
  let whole = 0;
  const clauses = new Float64Array(ce !== undefined ? ev.clauses : 0);
  for (const a of eligible) {
    whole = Math.max(whole, ev.evidence[a] ?? 0);
    if (ce !== undefined) for (let c = 0; c < ev.clauses; c += 1) clauses[c] = Math.max(clauses[c] ?? 0, ce[c * n + a] ?? 0);
  }
  return { whole, clauses };
}

/** Relevance 0..1 of one agent from its evidence and the best evidence of the query (step 3). */
export function relevanceOf(evidence: number, bestEvidence: number, p: ScoringParams = SCORING): number {
  if (evidence <= 0 || bestEvidence <= 0) return 0;
  const absolute = 1 - Math.exp(-evidence / p.tau);
  const share = Math.pow(evidence / bestEvidence, p.gamma);
  return absolute * share;
}

/** Relevance of agent `a`: over the whole request, or over the clause it explains best (step 3). */
export function agentRelevance(ev: Evidence, a: number, best: BestEvidence, p: ScoringParams = SCORING): number {
  let r = relevanceOf(ev.evidence[a] ?? 0, best.whole, p);
  const ce = ev.clauseEvidence;
  if (ce !== undefined) {
    const n = ev.evidence.length;
    for (let c = 0; c < ev.clauses; c += 1) {
      const e = ce[c * n + a] ?? 0;
      if (e > 0) r = Math.max(r, clauseWeightOf(p) * relevanceOf(e, best.clauses[c] ?? 0, p));
    }
  }
  return r;
}

/**
 * Reliability factor of confidence (select.ts): 0.8 + 0.2 · successRate, so a flaky agent loses at
 * most a fifth of its confidence and never becomes relevant through it. A missing or out-of-range
 * rate is clamped, never trusted.
 */
export function reliabilityOf(successRate: number): number {
  const rate = Number.isFinite(successRate) ? Math.min(1, Math.max(0, successRate)) : 0;
  return 0.8 + 0.2 * rate;
}
