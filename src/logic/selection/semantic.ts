/**
 * Semantic matching of request words through word vectors: a query word may stand for the
 * catalog words nearest to it in meaning ("ibuprofen" → medication, "tweet" → twitter), at a
 * discount that grows with the distance. The comparison is against the catalog vocabulary only
 * (a few thousand words at most), and each query word's neighbours are memoized per index.
 */
import type { CatalogIndex, SemanticNeighbour } from './catalog.js';
import { unitRow } from './word-vectors.js';

export interface SemanticParams {
  /** Below this cosine two words are not taken as related. */
  readonly minCosine: number;
  /** quality = weight · cosine. */
  readonly weight: number;
  /**
   * Words among the this-many most frequent English words are not expanded: common words are
   * vague ("order", "set", "light") and their neighbours are mostly associations, not synonyms.
   */
  readonly minRank: number;
  /** Neighbours kept per query word. */
  readonly maxNeighbours: number;
}

export const SEMANTIC: SemanticParams = { minCosine: 0.5, weight: 1, minRank: 1000, maxNeighbours: 2 };

export type Neighbour = SemanticNeighbour;

const MAX_CACHED_WORDS = 50_000;
const NONE: readonly Neighbour[] = [];

/** Catalog words nearest to `folded` with cosine ≥ minCosine, best first; [] without a vector. */
export function semanticNeighbours(index: CatalogIndex, folded: string, p: SemanticParams = SEMANTIC): readonly Neighbour[] {
  const sem = index.semantic;
  if (sem === undefined) return NONE;
  const key = `${folded}\u0000${p.minCosine}\u0000${p.maxNeighbours}\u0000${p.minRank}`;
  const cached = sem.cache.get(key);
  if (cached !== undefined) return cached;
  const { table, vectors, words, stems } = sem;
  const row = table.rows.get(folded);
  let result: Neighbour[] = [];
  if (row !== undefined && (table.rank[row] ?? 0) >= p.minRank) {
    const cosines = new Float64Array(words.length);
    vectors.dots(unitRow(table, row), cosines);
    const best = new Map<string, Neighbour>();
    for (let i = 0; i < words.length; i += 1) {
      const cosine = cosines[i] as number;
      if (cosine < p.minCosine) continue;
      const s = stems[i] as string;
      const current = best.get(s);
      if (current === undefined || cosine > current.cosine) best.set(s, { stem: s, word: words[i] as string, cosine });
    }
    result = [...best.values()]
      .sort((a, b) => b.cosine - a.cosine || (a.stem < b.stem ? -1 : 1))
      .slice(0, p.maxNeighbours);
  }
  if (sem.cache.size >= MAX_CACHED_WORDS) sem.cache.clear();
  sem.cache.set(key, result);
  return result;
}

/** How much a neighbour at `cosine` counts compared with the word itself. */
export function semanticQuality(cosine: number, p: SemanticParams = SEMANTIC): number {
  return cosine < p.minCosine ? 0 : p.weight * Math.min(1, cosine);
}
