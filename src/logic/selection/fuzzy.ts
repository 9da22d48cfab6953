/**
 * Matching of query words the catalog does not contain: typos ("grammer", "trnaslate"),
 * derivations the stemmer keeps apart ("transcription" / "transcribe") and cognates of the
 * other supported languages ("urgencia" / "urgency"). Candidates come from the catalog's trigram
 * index, so the cost depends on the word, not on the number of agents.
 */
import { trigramsOf } from './catalog.js';
import { wordCosine } from './word-vectors.js';
import type { CatalogIndex, Expansion } from './catalog.js';

/** Below this Dice coefficient of padded trigrams two words are unrelated. */
const MIN_DICE = 0.6;
/** Shortest word for typo matching: short words have too many neighbours at distance 1. */
const MIN_TYPO_LENGTH = 5;
const MIN_DICE_LENGTH = 6;
/** Shared stem prefix, as a share of the longer stem, that makes two words one family. */
const MIN_PREFIX_SHARE = 0.75;
const MIN_PREFIX = 5;
const MAX_EXPANSIONS = 3;
/** Unseen words keep arriving in a long-running service; the memo is dropped whole past this size. */
const MAX_CACHED_WORDS = 50_000;

/** Optimal string alignment distance (Levenshtein plus adjacent transposition), capped at `max + 1`. */
export function osaDistance(a: string, b: string, max: number): number {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  const rows: number[][] = [];
  for (let i = 0; i <= a.length; i += 1) rows.push(new Array<number>(b.length + 1).fill(0));
  for (let i = 0; i <= a.length; i += 1) (rows[i] as number[])[0] = i;
  for (let j = 0; j <= b.length; j += 1) (rows[0] as number[])[j] = j;
  for (let i = 1; i <= a.length; i += 1) {
    const row = rows[i] as number[];
    const prev = rows[i - 1] as number[];
    let rowMin = Infinity;
    for (let j = 1; j <= b.length; j += 1) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min((prev[j] as number) + 1, (row[j - 1] as number) + 1, (prev[j - 1] as number) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        d = Math.min(d, ((rows[i - 2] as number[])[j - 2] as number) + 1);
      }
      row[j] = d;
      if (d < rowMin) rowMin = d;
    }
    if (rowMin > max) return max + 1;
  }
  return (rows[a.length] as number[])[b.length] as number;
}

/**
 * A word among the most frequent English words is what its writer meant, not a typo of a catalog
 * word: "thread" is not "threat", "least" is not "lease". Rare and unknown forms ("grammer",
 * "trnaslate") still are. Without word vectors every word may be a typo, as before.
 */
export const TYPO_MAX_RANK = 30_000;

function isCommonEnglishWord(index: CatalogIndex, folded: string): boolean {
  const table = index.wordVectors;
  if (table === undefined) return false;
  const row = table.rows.get(folded);
  return row !== undefined && (table.rank[row] ?? Infinity) < TYPO_MAX_RANK;
}

/**
 * Below this cosine of their word vectors, two words sharing a long prefix are not one family:
 * "transcription"/"transcribe" (0.65) and "summarize"/"summary" (0.81) are, "thread"/"threat"
 * (0.01) and "least"/"lease" (−0.06) are coincidences of spelling.
 */
const MIN_FAMILY_COSINE = 0.3;

/** True unless both words have vectors and those say the words are unrelated. */
function relatedInMeaning(index: CatalogIndex, a: string, b: string): boolean {
  const table = index.wordVectors;
  if (table === undefined) return true;
  const cosine = wordCosine(table, a, b);
  return cosine === undefined || cosine >= MIN_FAMILY_COSINE;
}

function commonPrefix(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a.charCodeAt(i) === b.charCodeAt(i)) i += 1;
  return i;
}

/**
 * Catalog stems a query word may stand for, best first. `folded` is the word as written
 * (lowercase, no diacritics), `wordStem` its stem.
 */
export function expandWord(index: CatalogIndex, folded: string, wordStem: string): readonly Expansion[] {
  const key = `${folded}\u0000${wordStem}`;
  const cached = index.expansionCache.get(key);
  if (cached !== undefined) return cached;

  const best = new Map<string, Expansion>();
  const offer = (candidate: Expansion): void => {
    if (candidate.stem === wordStem) return;
    const current = best.get(candidate.stem);
    if (current === undefined || candidate.quality > current.quality) best.set(candidate.stem, candidate);
  };

  const grams = [...new Set(trigramsOf(folded))];
  const shared = new Map<string, number>();
  for (const gram of grams) {
    for (const word of index.trigrams.get(gram) ?? []) shared.set(word, (shared.get(word) ?? 0) + 1);
  }
  const known = index.postings.has(wordStem);
  const typoCandidate = !known && !isCommonEnglishWord(index, folded);
  for (const [word, count] of shared) {
    const target = index.words.get(word);
    if (target === undefined) continue;
    const dice = (2 * count) / (grams.length + trigramsOf(word).length);
    // Typos and cognates rarely differ in the first letter; requiring it keeps "lights" from
    // becoming "flights".
    const sameStart = word[0] === folded[0];
    if (typoCandidate && sameStart && folded.length >= MIN_TYPO_LENGTH && count >= 2) {
      const maxDistance = folded.length >= 9 ? 2 : 1;
      const distance = osaDistance(folded, word, maxDistance);
      if (distance <= maxDistance) offer({ stem: target, quality: distance === 1 ? 0.9 : 0.75, word });
    }
    if (typoCandidate && sameStart && folded.length >= MIN_DICE_LENGTH && dice >= MIN_DICE) {
      offer({ stem: target, quality: Math.min(0.85, dice), word });
    }
    const prefix = commonPrefix(wordStem, target);
    if (
      prefix >= MIN_PREFIX &&
      prefix / Math.max(wordStem.length, target.length) >= MIN_PREFIX_SHARE &&
      relatedInMeaning(index, folded, word)
    ) {
      offer({ stem: target, quality: 0.7, word });
    }
  }
  const result = [...best.values()]
    .sort((a, b) => b.quality - a.quality || (a.stem < b.stem ? -1 : a.stem > b.stem ? 1 : 0))
    .slice(0, MAX_EXPANSIONS);
  if (index.expansionCache.size >= MAX_CACHED_WORDS) index.expansionCache.clear();
  index.expansionCache.set(key, result);
  return result;
}
