/**
 * Selection quality metrics, exactly as shared/data/selection/README.md defines them. Pure: the
 * caller runs selection however it likes (in process, or through the HTTP API) and hands over
 * the selected ids per query.
 */
import { SELECTION_DEFAULTS } from './types.js';
import type { SelectionCriteria } from './types.js';

export interface LabeledQuery {
  readonly id: string;
  readonly query: string;
  readonly context?: unknown;
  readonly selectionCriteria?: SelectionCriteria;
  readonly relevant: readonly string[];
  readonly acceptable?: readonly string[];
  readonly tags?: readonly string[];
}

export interface QueryOutcome {
  readonly id: string;
  readonly tags: readonly string[];
  readonly noMatchQuery: boolean;
  /** Defined for queries with a non-empty `relevant`. */
  readonly top1Hit?: boolean;
  readonly recall?: number;
  /** Defined when `relevant` is non-empty and something was selected. */
  readonly precision?: number;
  readonly subsetOfOk?: boolean;
  /** Defined for no-match queries. */
  readonly noMatchHit?: boolean;
  readonly selected: readonly string[];
}

export interface Metrics {
  readonly queries: number;
  readonly top1: number | null;
  readonly recallAtK: number | null;
  readonly precision: number | null;
  readonly selectedSubsetOfOk: number | null;
  readonly noMatch: number | null;
  /** Denominators: queries with relevant, with relevant and a result, with relevant = []. */
  readonly withRelevant: number;
  readonly withResult: number;
  readonly noMatchQueries: number;
}

export interface EvaluationReport {
  readonly overall: Metrics;
  readonly byTag: Readonly<Record<string, Metrics>>;
  readonly outcomes: readonly QueryOutcome[];
}

export const TARGETS = { top1: 0.9, noMatch: 0.9, precision: 0.85 } as const;

/** Scores one query's selection (ids, best first). */
export function scoreQuery(query: LabeledQuery, selected: readonly string[]): QueryOutcome {
  const k = query.selectionCriteria?.maxAgents ?? SELECTION_DEFAULTS.maxAgents;
  const tags = query.tags ?? [];
  if (query.relevant.length === 0) {
    return { id: query.id, tags, noMatchQuery: true, noMatchHit: selected.length === 0, selected };
  }
  const relevant = new Set(query.relevant);
  const ok = new Set([...query.relevant, ...(query.acceptable ?? [])]);
  const first = selected[0];
  const top1Hit = first !== undefined && ok.has(first);
  const recall = selected.filter((id) => relevant.has(id)).length / Math.min(relevant.size, k);
  if (selected.length === 0) return { id: query.id, tags, noMatchQuery: false, top1Hit, recall, selected };
  const good = selected.filter((id) => ok.has(id)).length;
  return {
    id: query.id,
    tags,
    noMatchQuery: false,
    top1Hit,
    recall,
    precision: good / selected.length,
    subsetOfOk: good === selected.length,
    selected,
  };
}

function mean(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  return values.reduce((a, b) => a + b, 0) / values.length;
}

export function summarize(outcomes: readonly QueryOutcome[]): Metrics {
  const withRelevant = outcomes.filter((o) => !o.noMatchQuery);
  const withResult = withRelevant.filter((o) => o.precision !== undefined);
  const noMatch = outcomes.filter((o) => o.noMatchQuery);
  return {
    queries: outcomes.length,
    top1: mean(withRelevant.map((o) => (o.top1Hit === true ? 1 : 0))),
    recallAtK: mean(withRelevant.map((o) => o.recall ?? 0)),
    precision: mean(withResult.map((o) => o.precision ?? 0)),
    selectedSubsetOfOk: mean(withResult.map((o) => (o.subsetOfOk === true ? 1 : 0))),
    noMatch: mean(noMatch.map((o) => (o.noMatchHit === true ? 1 : 0))),
    withRelevant: withRelevant.length,
    withResult: withResult.length,
    noMatchQueries: noMatch.length,
  };
}

/** Metrics for the whole set and per tag; `selections` holds the selected ids per query id. */
export function evaluateSelections(
  queries: readonly LabeledQuery[],
  selections: ReadonlyMap<string, readonly string[]>,
): EvaluationReport {
  const outcomes = queries.map((q) => scoreQuery(q, selections.get(q.id) ?? []));
  const tags = [...new Set(outcomes.flatMap((o) => o.tags))].sort();
  const byTag: Record<string, Metrics> = {};
  for (const tag of tags) byTag[tag] = summarize(outcomes.filter((o) => o.tags.includes(tag)));
  return { overall: summarize(outcomes), byTag, outcomes };
}

/** Targets a metric set misses, as readable lines; empty when all are met. */
export function missedTargets(m: Metrics): string[] {
  const missed: string[] = [];
  if (m.top1 !== null && m.top1 < TARGETS.top1) missed.push(`top-1 ${m.top1.toFixed(3)} < ${TARGETS.top1}`);
  if (m.noMatch !== null && m.noMatch < TARGETS.noMatch) missed.push(`no-match ${m.noMatch.toFixed(3)} < ${TARGETS.noMatch}`);
  if (m.precision !== null && m.precision < TARGETS.precision) {
    missed.push(`precision ${m.precision.toFixed(3)} < ${TARGETS.precision}`);
  }
  return missed;
}
