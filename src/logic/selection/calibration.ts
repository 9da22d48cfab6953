/**
 * From an agent's evidence to one calibrated relevance, 0..1: a logistic model over a few
 * signals, each of which says something about the request and the agent and nothing about any
 * particular agent (so it applies to any catalog):
 *   text          lexical relevance (score.ts), 0..1
 *   textGap       text − the best text among the agents that passed the filters (≤ 0)
 *   meaning       cosine of the request's and the agent's meaning vectors (dense.ts)
 *   meaningGap    meaning − the best meaning among those agents (≤ 0)
 *   standout      how clearly the agent stands out in meaning from the different agents close to
 *                 the request (meaning.ts); near-copies of the agent do not count against it, so
 *                 a catalog that offers a service twice does not lower either offer
 *   example       cosine of the request with the agent's closest example request (meaning.ts);
 *                 0 for an agent without examples
 *   exampleGap    example − the best example cosine among those agents that have examples (≤ 0;
 *                 0 without examples)
 *   hasExamples   1 when the agent has examples, else 0: the fit learns how much an example
 *                 match of a given cosine is worth against the description alone, so an agent
 *                 without examples is judged on what it has, not pushed down for lacking them
 *   relevance = σ(bias + Σ weight_i · signal_i)
 * The weights are fitted by `npm run fit:selection` (bench/selection-fit.ts) on a labeled query
 * set and written to calibration-fit.ts; the bias is then shifted so that a relevance of 0.7
 * (the default minConfidence) is the cut-off that fitted best, which gives minConfidence a
 * meaning: "at least as sure as the default operating point".
 */
import { FITTED_CALIBRATION } from './calibration-fit.js';

export const SIGNALS = ['text', 'textGap', 'meaning', 'meaningGap', 'standout', 'example', 'exampleGap', 'hasExamples'] as const;
export type Signal = (typeof SIGNALS)[number];

export interface Calibration {
  readonly weights: Readonly<Record<Signal, number>>;
  readonly bias: number;
  /** A clause of the request read on its own counts this much of the whole request (select.ts). */
  readonly clauseWeight: number;
}

export const CALIBRATION: Calibration = FITTED_CALIBRATION;

/** One reading of a request: text, meaning and standout per agent, and the best text and meaning among eligible agents. */
export interface SignalContext {
  readonly text: ArrayLike<number>;
  readonly meaning: ArrayLike<number>;
  readonly standout: ArrayLike<number>;
  readonly bestText: number;
  readonly bestMeaning: number;
  /** Closest-example cosine and has-examples flag per agent (0 for agents without examples). */
  readonly example: ArrayLike<number>;
  readonly hasExamples: ArrayLike<number>;
  /** Best closest-example cosine among eligible agents with examples; 0 when none has any. */
  readonly bestExample: number;
}

const NO_EXAMPLES: ArrayLike<number> = { length: 0 };

export function signalContext(
  text: ArrayLike<number>,
  meaning: ArrayLike<number>,
  standout: ArrayLike<number>,
  eligible: readonly number[],
  examples?: { readonly cosine: ArrayLike<number>; readonly has: ArrayLike<number> },
): SignalContext {
  let bestText = 0;
  let bestMeaning = -Infinity;
  let bestExample = -Infinity;
  const example = examples?.cosine ?? NO_EXAMPLES;
  const hasExamples = examples?.has ?? NO_EXAMPLES;
  for (const a of eligible) {
    bestText = Math.max(bestText, text[a] ?? 0);
    bestMeaning = Math.max(bestMeaning, meaning[a] ?? 0);
    if ((hasExamples[a] ?? 0) > 0) bestExample = Math.max(bestExample, example[a] ?? 0);
  }
  return {
    text,
    meaning,
    standout,
    bestText,
    bestMeaning: Number.isFinite(bestMeaning) ? bestMeaning : 0,
    example,
    hasExamples,
    bestExample: Number.isFinite(bestExample) ? bestExample : 0,
  };
}

/** Agent `a`'s signals, in SIGNALS order. */
export function signalsAt(ctx: SignalContext, a: number): Float64Array {
  const t = ctx.text[a] ?? 0;
  const m = ctx.meaning[a] ?? 0;
  const has = ctx.hasExamples[a] ?? 0;
  const e = ctx.example[a] ?? 0;
  return Float64Array.of(t, t - ctx.bestText, m, m - ctx.bestMeaning, ctx.standout[a] ?? 0, e, has > 0 ? e - ctx.bestExample : 0, has);
}

/** Agent `a`'s logit, bias + w·signals; relevance is σ of it. Allocation-free for the hot path. */
export function logitAt(ctx: SignalContext, a: number, c: Calibration = CALIBRATION): number {
  const t = ctx.text[a] ?? 0;
  const m = ctx.meaning[a] ?? 0;
  const w = c.weights;
  const z =
    c.bias +
    w.text * t +
    w.textGap * (t - ctx.bestText) +
    w.meaning * m +
    w.meaningGap * (m - ctx.bestMeaning) +
    w.standout * (ctx.standout[a] ?? 0);
  if ((ctx.hasExamples[a] ?? 0) === 0) return z;
  const e = ctx.example[a] ?? 0;
  return z + w.example * e + w.exampleGap * (e - ctx.bestExample) + w.hasExamples;
}

/** Agent `a`'s calibrated relevance, σ(bias + w·signals). */
export function relevanceAt(ctx: SignalContext, a: number, c: Calibration = CALIBRATION): number {
  return sigmoid(logitAt(ctx, a, c));
}

export function sigmoid(z: number): number {
  return 1 / (1 + Math.exp(-z));
}

/** The logit below which relevance × `weight` stays under `floor` (−∞ when any logit will do, +∞ when none). */
export function logitFloor(floor: number, weight: number): number {
  if (floor <= 0) return -Infinity;
  const p = floor / weight;
  return p >= 1 ? Infinity : Math.log(p / (1 - p));
}
