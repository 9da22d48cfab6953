/**
 * Meaning vectors of texts: the frequency-weighted sum of their words' static vectors
 * (word-vectors.ts), normalised, so that the dot product of two texts' vectors is a cosine.
 * A word weighs a / (a + p(w)) (Arora et al.'s smooth inverse frequency), p(w) from its corpus
 * frequency rank by Zipf's law: frequent words say little about what a request is for.
 * Stop words are left out; words the table lacks add nothing (lexical matching still sees them).
 */
import { translations } from './lexicon.js';
import { Language, isStopWord, stem } from './text.js';
import type { Token } from './text.js';
import { addRow } from './word-vectors.js';
import type { WordVectorTable } from './word-vectors.js';

const SIF_A = 1e-3;

/** Smooth-inverse-frequency weight of a word of corpus-frequency rank `rank`. */
export function frequencyWeight(rank: number): number {
  const p = 1 / ((rank + 50) * 10);
  return SIF_A / (SIF_A + p);
}

/** Accumulates texts' words into one vector; `weight` scales a whole text (context < query). */
export class TextVector {
  readonly sum: Float32Array;
  private words = 0;

  constructor(private readonly table: WordVectorTable) {
    this.sum = new Float32Array(table.dimensions);
  }

  /** Adds the words of `tokens` (folded forms) at `weight`; a word already added counts once. */
  add(tokens: readonly Token[], language: Language, weight = 1, seen: Set<string> = new Set()): this {
    const { table } = this;
    for (const token of tokens) {
      if (seen.has(token.folded)) continue;
      seen.add(token.folded);
      if (isStopWord(token.folded, language)) continue;
      for (const word of englishForms(token.folded, language)) {
        const row = table.rows.get(word);
        if (row === undefined) continue;
        addRow(table, row, weight * frequencyWeight(table.rank[row] ?? Number.MAX_SAFE_INTEGER), this.sum);
        this.words += 1;
      }
    }
    return this;
  }

  /** The unit vector, or undefined when no word of the text is in the table. */
  unit(): Float32Array | undefined {
    if (this.words === 0) return undefined;
    let norm = 0;
    for (const x of this.sum) norm += x * x;
    norm = Math.sqrt(norm);
    if (norm === 0) return undefined;
    const out = new Float32Array(this.sum.length);
    for (let d = 0; d < out.length; d += 1) out[d] = (this.sum[d] as number) / norm;
    return out;
  }
}

/** The table is English: a foreign word counts through its lexicon translations when it has any. */
function englishForms(folded: string, language: Language): readonly string[] {
  if (language === Language.EN) return [folded];
  const english = translations(language, folded, stem(folded, language));
  return english.length > 0 ? english : [folded];
}
