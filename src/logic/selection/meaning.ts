/**
 * Meaning signals of one request against the catalog (calibration.ts): the cosine of the request's
 * meaning vector with every agent's, and how clearly an agent stands out from the different
 * agents that come close. The agents' unit meaning vectors sit in one matrix (catalog.ts).
 */
import type { CatalogIndex } from './catalog.js';
import { MAX_QUERIES_PER_PASS } from './dot-kernel.js';
import type { DotKernel } from './dot-kernel.js';
import { TextVector } from './dense.js';
import { CONTEXT_WEIGHT } from './query.js';
import type { Language } from './text.js';
import { contextText, detectLanguage, tokenize } from './text.js';

/** Agents closest in meaning that `standout` compares with one another. */
export const STANDOUT_NEIGHBOURS = 10;
/** Temperature of `standout`: a competitor this much lower in cosine counts e⁻¹ as much. */
export const STANDOUT_TEMPERATURE = 0.05;

/** The meaning vector of a request's text, with its context's words at CONTEXT_WEIGHT. */
export function requestMeaning(index: CatalogIndex, text: string, language: Language, context?: unknown): Float32Array | undefined {
  const table = index.wordVectors;
  if (table === undefined) return undefined;
  const seen = new Set<string>();
  const vector = new TextVector(table).add(tokenize(text), language, 1, seen);
  if (context !== undefined && context !== null) {
    const contextTokens = tokenize(contextText(context));
    vector.add(contextTokens, detectLanguage(contextTokens), CONTEXT_WEIGHT, seen);
  }
  return vector.unit();
}

/** Cosine of a meaning vector with each agent's; 0 for agents outside `eligible`. */
export function meaningSimilarities(index: CatalogIndex, query: Float32Array | undefined, eligible: readonly number[]): Float64Array {
  return meaningSimilaritiesMany(index, [query], eligible)[0] as Float64Array;
}

/**
 * meaningSimilarities for several readings of a request (the whole of it and its clauses) in one
 * pass over the agents' matrix (dot-kernel.ts `dotsMany`); the values are the same.
 */
export function meaningSimilaritiesMany(
  index: CatalogIndex,
  queries: readonly (Float32Array | undefined)[],
  eligible: readonly number[],
): Float64Array[] {
  const n = index.agents.length;
  const results = queries.map(() => new Float64Array(n));
  const kernel = index.meaning;
  if (kernel === undefined) return results;
  forEachPass(kernel, queries, (q, dots) => {
    const out = results[q] as Float64Array;
    if (eligible.length === n) for (let a = 0; a < n; a += 1) out[a] = dots[a] as number;
    else for (const a of eligible) out[a] = dots[a] as number;
  });
  return results;
}

/**
 * Runs the kernel over the defined queries, at most MAX_QUERIES_PER_PASS per pass, and hands
 * each query's dot products (by its position in `queries`) to `use` before the next pass.
 */
function forEachPass(kernel: DotKernel, queries: readonly (Float32Array | undefined)[], use: (q: number, dots: ArrayLike<number>) => void): void {
  const defined: number[] = [];
  queries.forEach((v, q) => {
    if (v !== undefined) defined.push(q);
  });
  for (let from = 0; from < defined.length; from += MAX_QUERIES_PER_PASS) {
    const batch = defined.slice(from, from + MAX_QUERIES_PER_PASS);
    const dots = kernel.dotsMany(batch.map((q) => queries[q] as Float32Array));
    batch.forEach((q, i) => use(q, dots[i] as ArrayLike<number>));
  }
}

/**
 * How clearly each of the STANDOUT_NEIGHBOURS agents closest in meaning stands out from the
 * others among them: 1 / (1 + Σ_b e^((m_b − m_a)/T) · (1 − sim(a, b))), with m the request
 * cosines and sim(a, b) the cosine of the two agents' own meaning vectors (clamped to 0..1). A
 * competitor that does something else counts fully; a near-copy of the agent (another vendor of
 * the same service) hardly counts, so a catalog that offers a service twice does not make either
 * look less fitting. 0 for agents outside the neighbours.
 */
export function standout(index: CatalogIndex, meaning: Float64Array, eligible: readonly number[]): Float64Array {
  const out = new Float64Array(meaning.length);
  const top: number[] = [];
  for (const a of eligible) {
    const value = meaning[a] ?? 0;
    if (top.length === STANDOUT_NEIGHBOURS && value <= (meaning[top[top.length - 1] as number] ?? 0)) continue;
    let i = Math.min(top.length, STANDOUT_NEIGHBOURS - 1);
    top[i] = a;
    // Insertion keeps the short list sorted, best first; ties keep catalog order.
    while (i > 0 && (meaning[top[i - 1] as number] ?? 0) < value) {
      top[i] = top[i - 1] as number;
      top[i - 1] = a;
      i -= 1;
    }
  }
  const m = index.meaning?.matrix ?? new Float32Array(0);
  const d = index.meaning?.dimensions ?? 0;
  const similarity = (a: number, b: number): number => {
    let sim = 0;
    for (let k = 0; k < d; k += 1) sim += (m[a * d + k] as number) * (m[b * d + k] as number);
    return Math.min(1, Math.max(0, sim));
  };
  const others = new Float64Array(top.length);
  for (let i = 0; i < top.length; i += 1) {
    for (let j = i + 1; j < top.length; j += 1) {
      const a = top[i] as number;
      const b = top[j] as number;
      // One cosine per pair: each agent of the pair is the other's competitor.
      const gap = ((meaning[a] ?? 0) - (meaning[b] ?? 0)) / STANDOUT_TEMPERATURE;
      const distinct = 1 - similarity(a, b);
      others[i] = (others[i] as number) + Math.exp(-gap) * distinct;
      others[j] = (others[j] as number) + Math.exp(gap) * distinct;
    }
  }
  top.forEach((a, i) => {
    out[a] = 1 / (1 + (others[i] as number));
  });
  return out;
}

/** Each agent's best-matching example for one meaning vector. */
export interface ExampleMatches {
  /** Cosine of the request with the agent's closest example; 0 for an agent without examples or outside `eligible`. */
  readonly cosine: Float64Array;
  /** Row of that example in the catalog's example index (catalog.ts); −1 when none. */
  readonly row: Int32Array;
  /** 1 for an eligible agent that has examples, else 0. */
  readonly has: Float64Array;
}

/**
 * The best match over each agent's examples: the request is compared with every example on its
 * own, not with their average, so one example phrased like the request is enough.
 */
export function exampleSimilarities(index: CatalogIndex, query: Float32Array | undefined, eligible: readonly number[]): ExampleMatches {
  return exampleSimilaritiesMany(index, [query], eligible)[0] as ExampleMatches;
}

/**
 * exampleSimilarities for several readings of a request in one pass over the example matrix: at
 * 1,000 agents with 5 examples each the matrix is 2.5 MB, more than stays in cache, so streaming
 * it once per request instead of once per reading is most of the cost of examples.
 */
export function exampleSimilaritiesMany(
  index: CatalogIndex,
  queries: readonly (Float32Array | undefined)[],
  eligible: readonly number[],
): ExampleMatches[] {
  const n = index.agents.length;
  const ex = index.examples;
  const results = queries.map(() => ({ cosine: new Float64Array(n), row: new Int32Array(n).fill(-1), has: new Float64Array(n) }));
  if (ex === undefined || ex.vectors.rows === 0) return results;
  const bestOf = (all: ArrayLike<number>, result: ExampleMatches): void => {
    const { cosine, row, has } = result;
    for (const a of eligible) {
      const from = ex.start[a] as number;
      const to = ex.start[a + 1] as number;
      if (to <= from) continue;
      has[a] = 1;
      let best = from;
      for (let r = from + 1; r < to; r += 1) if ((all[r] as number) > (all[best] as number)) best = r;
      cosine[a] = all[best] as number;
      row[a] = best;
    }
  };
  // A reading without a meaning vector compares as 0 with every example (its first one is kept).
  if (queries.includes(undefined)) {
    const zeros = new Float64Array(ex.vectors.rows);
    queries.forEach((v, q) => {
      if (v === undefined) bestOf(zeros, results[q] as ExampleMatches);
    });
  }
  forEachPass(ex.vectors, queries, (q, dots) => bestOf(dots, results[q] as ExampleMatches));
  return results;
}
