/**
 * The catalog index: everything selection needs that depends only on the agents, computed once
 * when the catalog changes so that scoring a query touches only postings of its own terms.
 */
import { TextVector } from './dense.js';
import { createDotKernel } from './dot-kernel.js';
import type { DotKernel } from './dot-kernel.js';
import { Language, isStopWord, stem, tokenize } from './text.js';
import type { CatalogAgent } from './types.js';
import { sharedWordVectorTable, unitRow } from './word-vectors.js';
import type { WordVectorTable } from './word-vectors.js';

export const Field = { NAME: 0, CAPABILITIES: 1, VERTICAL: 2, DESCRIPTION: 3, EXAMPLES: 4 } as const;
export type Field = (typeof Field)[keyof typeof Field];
export const FIELD_NAMES = ['name', 'capabilities', 'vertical', 'description', 'examples'] as const;

/**
 * BM25F parameters; see the formula in score.ts. Examples (the owner's sample requests) weigh as
 * much as the description and are length-normalised hard (b = 0.75): twenty examples repeat the
 * agent's words far more often than five do, without meaning the agent fits any better. Their
 * average length is taken over the agents that have examples, so an agent without any does not
 * make the others' look long or short.
 */
export const FIELD_WEIGHT: readonly number[] = [2.5, 2.0, 1.5, 1.0, 1.0];
const FIELD_B: readonly number[] = [0.3, 0.3, 0, 0.6, 0.75];
const FIELDS = FIELD_NAMES.length;
export const K1 = 1.2;

export interface Posting {
  readonly agent: number;
  /** Saturated, field-weighted term frequency (BM25F), 0 < weight < K1 + 1. */
  readonly weight: number;
  /** Bit i set when the term occurs in field i. */
  readonly fields: number;
}

export interface IndexedAgent {
  readonly agent: CatalogAgent;
  readonly vertical: string;
  readonly capabilities: ReadonlySet<string>;
}

export interface CatalogIndex {
  readonly agents: readonly IndexedAgent[];
  readonly postings: ReadonlyMap<string, readonly Posting[]>;
  /** IDF of each stem divided by the IDF of a stem held by a single agent: 0..1. */
  readonly idf: ReadonlyMap<string, number>;
  /** Folded catalog words → their stem; the targets of typo and cognate matching. */
  readonly words: ReadonlyMap<string, string>;
  /** Trigram → catalog words containing it. */
  readonly trigrams: ReadonlyMap<string, readonly string[]>;
  readonly byId: ReadonlyMap<string, number>;
  /** Per-index memo of fuzzy expansions of unseen words; deterministic, so safe to share. */
  readonly expansionCache: Map<string, readonly Expansion[]>;
  /** Word vectors of the catalog vocabulary, for semantic matching; undefined without vectors. */
  readonly semantic: SemanticIndex | undefined;
  /** Static word vectors (word-vectors.ts); undefined when the index was built without them. */
  readonly wordVectors: WordVectorTable | undefined;
  /**
   * Unit meaning vector of each agent's name and description, agent i at row i of the kernel's
   * matrix (a zero row when none of its words is known); undefined without word vectors.
   */
  readonly meaning: DotKernel | undefined;
  /** Unit meaning vector of every example of every agent, one row each; undefined without vectors. */
  readonly examples: ExampleIndex | undefined;
}

/** The agents' examples as meaning vectors: agent a's are rows start[a] .. start[a + 1] − 1. */
export interface ExampleIndex {
  readonly vectors: DotKernel;
  readonly start: Int32Array;
  /** Row → the example's text (as the owner wrote it), for reasons. */
  readonly texts: readonly string[];
}

/** The catalog words that have a word vector, and a memo of query words' nearest ones. */
export interface SemanticIndex {
  readonly table: WordVectorTable;
  /** Unit vector of each catalog word below, word i at row i of the kernel's matrix. */
  readonly vectors: DotKernel;
  readonly words: readonly string[];
  readonly stems: readonly string[];
  /** Query word → its nearest catalog words (semantic.ts). */
  readonly cache: Map<string, readonly SemanticNeighbour[]>;
}

export interface SemanticNeighbour {
  readonly stem: string;
  readonly word: string;
  readonly cosine: number;
}

export interface CatalogIndexOptions {
  /** Word vectors for meaning similarity and semantic matching; default: the shipped table; null: none. */
  readonly vectors?: WordVectorTable | null;
}

export interface Expansion {
  readonly stem: string;
  /** How much a fuzzy match counts compared with an exact one, 0..1. */
  readonly quality: number;
  /** The catalog word it was matched to, for reasons. */
  readonly word: string;
}

export function trigramsOf(word: string): string[] {
  const padded = `^${word}$`;
  const grams: string[] = [];
  for (let i = 0; i + 3 <= padded.length; i += 1) grams.push(padded.slice(i, i + 3));
  return grams;
}

function fieldTexts(agent: CatalogAgent): readonly string[] {
  return [
    agent.name,
    agent.capabilities.join(' '),
    agent.vertical,
    agent.description,
    (agent.examples ?? []).join(' \n '),
  ];
}

/** Builds the index; call again whenever agents are added, changed or removed. */
export function buildCatalogIndex(agents: readonly CatalogAgent[], options: CatalogIndexOptions = {}): CatalogIndex {
  const n = agents.length;
  const perAgent: Map<string, number[]>[] = [];
  const fieldLengths: number[][] = [];
  const words = new Map<string, string>();

  for (const agent of agents) {
    const tf = new Map<string, number[]>();
    const lengths: number[] = [];
    fieldTexts(agent).forEach((text, field) => {
      let length = 0;
      for (const token of tokenize(text)) {
        if (isStopWord(token.folded, Language.EN)) continue;
        const s = stem(token.folded, Language.EN);
        if (!words.has(token.folded)) words.set(token.folded, s);
        length += 1;
        let counts = tf.get(s);
        if (counts === undefined) {
          counts = new Array<number>(FIELDS).fill(0);
          tf.set(s, counts);
        }
        counts[field] = (counts[field] ?? 0) + 1;
      }
      lengths.push(length);
    });
    perAgent.push(tf);
    fieldLengths.push(lengths);
  }

  const avgLength = FIELD_NAMES.map((_, f) => {
    const total = fieldLengths.reduce((sum, lengths) => sum + (lengths[f] ?? 0), 0);
    const count = f === Field.EXAMPLES ? fieldLengths.filter((lengths) => (lengths[f] ?? 0) > 0).length : n;
    return count === 0 ? 1 : Math.max(1, total / count);
  });

  const postings = new Map<string, Posting[]>();
  perAgent.forEach((tf, agentIndex) => {
    const lengths = fieldLengths[agentIndex] ?? [];
    for (const [s, counts] of tf) {
      let weighted = 0;
      let fields = 0;
      counts.forEach((count, f) => {
        if (count === 0) return;
        fields |= 1 << f;
        const b = FIELD_B[f] ?? 0;
        const norm = 1 - b + (b * (lengths[f] ?? 0)) / (avgLength[f] ?? 1);
        weighted += ((FIELD_WEIGHT[f] ?? 1) * count) / norm;
      });
      const weight = (weighted * (K1 + 1)) / (K1 + weighted);
      let list = postings.get(s);
      if (list === undefined) {
        list = [];
        postings.set(s, list);
      }
      list.push({ agent: agentIndex, weight, fields });
    }
  });

  const idf = new Map<string, number>();
  const idfOf = (df: number): number => Math.log(1 + (n - df + 0.5) / (df + 0.5));
  const idfMax = idfOf(1);
  for (const [s, list] of postings) idf.set(s, idfMax > 0 ? idfOf(list.length) / idfMax : 0);

  const trigrams = new Map<string, string[]>();
  for (const word of words.keys()) {
    for (const gram of new Set(trigramsOf(word))) {
      let list = trigrams.get(gram);
      if (list === undefined) {
        list = [];
        trigrams.set(gram, list);
      }
      list.push(word);
    }
  }

  const indexed = agents.map((agent) => ({
    agent,
    vertical: agent.vertical.toLowerCase(),
    capabilities: new Set(agent.capabilities.map((c) => c.toLowerCase())),
  }));
  const byId = new Map(agents.map((agent, i) => [agent.id, i] as const));
  const table = options.vectors === undefined ? sharedWordVectorTable() : (options.vectors ?? undefined);
  return {
    agents: indexed,
    postings,
    idf,
    words,
    trigrams,
    byId,
    expansionCache: new Map(),
    semantic: table === undefined ? undefined : semanticIndex(table, words),
    wordVectors: table,
    meaning: table === undefined ? undefined : meaningKernel(table, agents),
    examples: table === undefined ? undefined : exampleIndex(table, agents),
  };
}

/** One meaning vector per example (a zero row when none of its words is known). */
function exampleIndex(table: WordVectorTable, agents: readonly CatalogAgent[]): ExampleIndex {
  const start = new Int32Array(agents.length + 1);
  const texts: string[] = [];
  agents.forEach((agent, i) => {
    start[i] = texts.length;
    texts.push(...(agent.examples ?? []));
  });
  start[agents.length] = texts.length;
  const vectors = createDotKernel(texts.length, table.dimensions);
  texts.forEach((text, row) => {
    const v = new TextVector(table).add(tokenize(text), Language.EN).unit();
    if (v !== undefined) vectors.matrix.set(v, row * table.dimensions);
  });
  return { vectors, start, texts };
}

/** What each agent does, as one meaning vector per agent: its name and description. */
function meaningKernel(table: WordVectorTable, agents: readonly CatalogAgent[]): DotKernel {
  const kernel = createDotKernel(agents.length, table.dimensions);
  agents.forEach((agent, i) => {
    const v = new TextVector(table).add(tokenize(`${agent.name}: ${agent.description}`), Language.EN).unit();
    if (v !== undefined) kernel.matrix.set(v, i * table.dimensions);
  });
  return kernel;
}

function semanticIndex(table: WordVectorTable, words: ReadonlyMap<string, string>): SemanticIndex {
  const kept: string[] = [];
  const stems: string[] = [];
  const rows: number[] = [];
  for (const [word, s] of [...words].sort((a, b) => (a[0] < b[0] ? -1 : 1))) {
    const row = table.rows.get(word);
    if (row === undefined) continue;
    rows.push(row);
    kept.push(word);
    stems.push(s);
  }
  const vectors = createDotKernel(rows.length, table.dimensions);
  rows.forEach((row, i) => vectors.matrix.set(unitRow(table, row), i * table.dimensions));
  return { table, vectors, words: kept, stems, cache: new Map() };
}
