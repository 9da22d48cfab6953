/**
 * Turns a request's query and context into weighted term groups for scoring. Each group is one
 * word of the request with the catalog stems it may stand for (itself, a typo correction, a
 * derivation, a translation); an agent is credited with the best alternative of each group only,
 * so a word never counts twice.
 */
import { expandWord } from './fuzzy.js';
import type { CatalogIndex } from './catalog.js';
import { translations } from './lexicon.js';
import { semanticNeighbours, semanticQuality } from './semantic.js';
import { Language, contextText, detectLanguage, isStopWord, stem, tokenize } from './text.js';
import type { Token } from './text.js';

/** A word of the context counts this much of a word of the query: context is evidence, not the ask. */
export const CONTEXT_WEIGHT = 0.4;

export interface TermAlternative {
  readonly stem: string;
  readonly quality: number;
  /** Human-readable form for reasons: "grammer≈grammar", "vol→flight". */
  readonly label: string;
  /** Reached through word vectors (semantic.ts) rather than form or translation. */
  readonly semantic?: boolean;
}

export interface TermGroup {
  readonly weight: number;
  readonly surface: string;
  readonly alternatives: readonly TermAlternative[];
  /** Clause of the query the word is in (0, 1, …); −1 for context and criteria words. */
  readonly clause: number;
}

export interface AnalyzedQuery {
  readonly language: Language;
  readonly groups: readonly TermGroup[];
  /** Number of clauses of the query (≥ 1). */
  readonly clauses: number;
}

function alternativesFor(index: CatalogIndex, token: Token, language: Language): TermAlternative[] {
  const out = new Map<string, TermAlternative>();
  const offer = (alt: TermAlternative): void => {
    const current = out.get(alt.stem);
    if (current === undefined || alt.quality > current.quality) out.set(alt.stem, alt);
  };
  const direct = (s: string, quality: number, label: string): void => {
    if (index.postings.has(s)) {
      offer({ stem: s, quality, label });
      for (const e of expandWord(index, token.folded, s)) {
        if (e.quality >= 0.7) offer({ stem: e.stem, quality: quality * e.quality * 0.85, label: `${label}~${e.word}` });
      }
    } else {
      for (const e of expandWord(index, token.folded, s)) offer({ stem: e.stem, quality: quality * e.quality, label: `${token.surface}≈${e.word}` });
    }
  };
  // Meaning neighbours, at a discount that grows with the distance; a foreign word goes through
  // its translations (the vectors are English).
  const semantic = (word: string, quality: number, label: string): void => {
    for (const n of semanticNeighbours(index, word)) {
      const q = quality * semanticQuality(n.cosine);
      if (q > 0) offer({ stem: n.stem, quality: q, label: `${label}≈${n.word}`, semantic: true });
    }
  };
  direct(stem(token.folded, Language.EN), 1, token.surface);
  // Only words the catalog does not know by form reach for neighbours: a known word already says
  // which agents it means, and its neighbours would mostly add noise.
  if (language === Language.EN) {
    if (out.size === 0) semantic(token.folded, 1, token.surface);
  } else {
    const foreign = stem(token.folded, language);
    for (const english of translations(language, token.folded, foreign)) {
      const s = stem(english, Language.EN);
      if (index.postings.has(s)) offer({ stem: s, quality: 0.9, label: `${token.surface}→${english}` });
      semantic(english, 0.9, `${token.surface}→${english}`);
    }
  }
  return [...out.values()].sort((a, b) => b.quality - a.quality || (a.stem < b.stem ? -1 : 1));
}

function addGroups(
  index: CatalogIndex,
  tokens: readonly Token[],
  language: Language,
  weight: number,
  seen: Set<string>,
  groups: TermGroup[],
  clauseOf: (i: number) => number,
): void {
  tokens.forEach((token, i) => {
    if (seen.has(token.folded)) return;
    seen.add(token.folded);
    if (isStopWord(token.folded, language)) return;
    const alternatives = alternativesFor(index, token, language);
    if (alternatives.length > 0) groups.push({ weight, surface: token.surface, alternatives, clause: clauseOf(i) });
  });
}

/**
 * Clause boundaries of a query: sentence and clause punctuation, and the conjunctions that join
 * two requests ("X, then Y", "X and Y"), in the four supported languages.
 */
const CLAUSE_BREAK = /[.!?;:,()]+|\s(?:and|then|plus|also|as well as|y|luego|despues|tambien|et|puis|ensuite|aussi|und|dann|sowie|auch)\s/giu;

/** Splits the query into clauses; each returned piece is tokenized on its own. */
export function splitClauses(query: string): string[] {
  const folded = query.normalize('NFKD').replace(/\p{M}+/gu, '');
  return folded.split(CLAUSE_BREAK).filter((part) => part.trim().length > 0);
}

export function analyzeQuery(index: CatalogIndex, query: string, context: unknown): AnalyzedQuery {
  const queryTokens = tokenize(query);
  const language = detectLanguage(queryTokens);
  const groups: TermGroup[] = [];
  const seen = new Set<string>();
  const pieces = splitClauses(query);
  const clauseTokens: Token[] = [];
  const clauseIndex: number[] = [];
  pieces.forEach((piece, c) => {
    for (const token of tokenize(piece)) {
      clauseTokens.push(token);
      clauseIndex.push(c);
    }
  });
  addGroups(index, clauseTokens, language, 1, seen, groups, (i) => clauseIndex[i] ?? 0);
  if (context !== undefined && context !== null) {
    const contextTokens = tokenize(contextText(context));
    addGroups(index, contextTokens, detectLanguage(contextTokens), CONTEXT_WEIGHT, seen, groups, () => -1);
  }
  return { language, groups: oneMeaningPerStem(groups), clauses: Math.max(1, pieces.length) };
}

/**
 * A catalog stem reached only through meaning ("≈") stands in for one request word at most, the
 * closest: "bake", "chocolate" and "cake" all near "cookie" are one weak hint, not three.
 */
function oneMeaningPerStem(groups: readonly TermGroup[]): TermGroup[] {
  const owner = new Map<string, { group: number; score: number }>();
  groups.forEach((g, i) => {
    for (const alt of g.alternatives) {
      if (!alt.semantic) continue;
      const score = g.weight * alt.quality;
      const current = owner.get(alt.stem);
      if (current === undefined || score > current.score) owner.set(alt.stem, { group: i, score });
    }
  });
  const out: TermGroup[] = [];
  groups.forEach((g, i) => {
    const alternatives = g.alternatives.filter((alt) => !alt.semantic || owner.get(alt.stem)?.group === i);
    if (alternatives.length > 0) out.push(alternatives.length === g.alternatives.length ? g : { ...g, alternatives });
  });
  return out;
}
