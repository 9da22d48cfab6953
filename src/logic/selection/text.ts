/**
 * Text analysis shared by the catalog index and the query side: tokenizing, stop words,
 * a stop-word vote for the query language, and Snowball stemming (via @orama/stemmers).
 * Both sides must go through the same functions or the stems will not meet.
 */
import { stemmer as stemEn } from '@orama/stemmers/english';
import { stemmer as stemEs } from '@orama/stemmers/spanish';
import { stemmer as stemFr } from '@orama/stemmers/french';
import { stemmer as stemDe } from '@orama/stemmers/german';
import { stopwords as stopEn } from '@orama/stopwords/english';
import { stopwords as stopEs } from '@orama/stopwords/spanish';
import { stopwords as stopFr } from '@orama/stopwords/french';
import { stopwords as stopDe } from '@orama/stopwords/german';

export const Language = { EN: 'en', ES: 'es', FR: 'fr', DE: 'de' } as const;
export type Language = (typeof Language)[keyof typeof Language];

const STEMMERS: Readonly<Record<Language, (word: string) => string>> = {
  en: stemEn,
  es: stemEs,
  fr: stemFr,
  de: stemDe,
};

/**
 * Request filler that carries no topic in an instruction to an agent ("please write me …"), plus
 * chat shorthand. The library lists cover grammar words only.
 */
const REQUEST_FILLER = [
  'please', 'pls', 'plz', 'thanks', 'thank', 'hi', 'hello', 'hey', 'yo', 'ok', 'okay', 'lol', 'ugh',
  'u', 'ur', 'r', 'cn', 'im', 'nah', 'yeah', 'yes', 'like', 'just', 'also', 'really', 'super',
  'need', 'want', 'help', 'get', 'go', 'make', 'give', 'tell', 'let', 'know', 'see', 'look',
  'take', 'put', 'use', 'using', 'something', 'anything', 'everything', 'someone', 'anyone',
  'anybody', 'somebody', 'thing', 'things', 'stuff', 'way', 'lot', 'lots', 'bit', 'kind',
  'new', 'good', 'great', 'best', 'right', 'well', 'much', 'many', 'every', 'one', 'two', 'three',
  'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten', 'first', 'last', 'next', 'today',
  'tomorrow', 'yesterday', 'week', 'weeks', 'month', 'months', 'year', 'years', 'day', 'days',
  'time', 'times', 'now', 'able', 'could', 'would', 'should', 'might', 'will', 'can', 'may',
  'also', 'etc', 'via', 'per', 'within', 'without', 'across', 'along', 'around', 'whether',
  'still', 'already', 'yet', 'even', 'ever', 'never', 'always', 'often', 'sure', 'maybe',
  'whatever', 'including', 'such', 'our', 'your', 'their', 'us', 'me', 'them', 'it', 'this',
  'these', 'those', 'that', 'which', 'what', 'who', 'how', 'why', 'where', 'when',
  // heads of negative contractions ("doesn't" → doesn)
  'doesn', 'don', 'didn', 'isn', 'aren', 'wasn', 'weren', 'hasn', 'haven', 'hadn', 'won', 'wouldn',
  'shouldn', 'couldn', 'can', 'hasnt', 'doesnt', 'dont', 'didnt', 'isnt', 'cant', 'wont',
];

const STOP: Readonly<Record<Language, ReadonlySet<string>>> = {
  en: new Set([...stopEn, ...REQUEST_FILLER].map(fold)),
  es: new Set(stopEs.map(fold)),
  fr: new Set(stopFr.map(fold)),
  de: new Set(stopDe.map(fold)),
};

// Words that are stop words in a foreign list but real topic words in English queries.
const ENGLISH_TOPIC_WORDS: ReadonlySet<string> = new Set(['mail', 'art', 'con', 'date', 'fast', 'war']);

/** Lowercase and strip diacritics: "Lösungsschlüssel" and "losungsschlussel" must meet. */
export function fold(word: string): string {
  return word.normalize('NFKD').replace(/\p{M}+/gu, '').toLowerCase();
}

const WORD = /[\p{L}\p{N}]+(?:[-'’][\p{L}\p{N}]+)*/gu;
const ENGLISH_CLITICS: ReadonlySet<string> = new Set(['s', 're', 've', 'll', 'd', 'm', 't']);

export interface Token {
  /** As written, lowercased; used in human-readable reasons. */
  readonly surface: string;
  /** Folded form (no diacritics). */
  readonly folded: string;
}

/**
 * Words of a text. A hyphenated compound yields its parts and, when short enough to be one word
 * ("e-mail", "icd-10"), the joined form too. Elided articles ("l'ibuprofène") are dropped.
 */
export function tokenize(text: string): Token[] {
  const out: Token[] = [];
  for (const match of text.matchAll(WORD)) {
    const raw = match[0].toLowerCase().replace(/’/g, "'");
    const pieces = raw.split(/[-']/);
    // English contractions keep their head word: "we're" → we, "doesn't" → doesn, "wife's" → wife.
    const contraction = pieces.length === 2 && raw.includes("'") && ENGLISH_CLITICS.has(pieces[1] ?? '');
    const elided = !contraction && raw.includes("'") && pieces.length === 2 && (pieces[0]?.length ?? 0) <= 2;
    const parts = contraction ? pieces.slice(0, 1) : elided ? pieces.slice(1) : pieces;
    for (const part of parts) pushToken(out, part);
    if (!elided && parts.length === 2 && raw.includes('-') && raw.length <= 8) pushToken(out, parts.join(''));
  }
  return out;
}

function pushToken(out: Token[], surface: string): void {
  if (surface.length < 2 && !/\d/.test(surface)) return;
  // Bare numbers ("40", "2019") name quantities, not tasks.
  if (/^\d+$/.test(surface)) return;
  out.push({ surface, folded: fold(surface) });
}

/** camelCase and snake_case keys of a context object read as words. */
function splitIdentifier(key: string): string {
  return key.replace(/([a-z0-9])([A-Z])/g, '$1 $2').replace(/[_.]/g, ' ');
}

/**
 * Flattens a request's `context` into text: keys (identifiers split into words) and string
 * values, depth-first, capped so a huge context cannot dominate or slow selection.
 */
export function contextText(context: unknown, maxChars = 4000): string {
  const parts: string[] = [];
  let used = 0;
  const visit = (value: unknown, depth: number): void => {
    if (used >= maxChars || depth > 10) return;
    if (typeof value === 'string') {
      // URLs and file paths are mostly identifiers, but their words still hint at the task.
      parts.push(value);
      used += value.length;
    } else if (Array.isArray(value)) {
      for (const item of value) visit(item, depth + 1);
    } else if (value !== null && typeof value === 'object') {
      for (const [key, item] of Object.entries(value)) {
        const words = splitIdentifier(key);
        parts.push(words);
        used += words.length;
        visit(item, depth + 1);
      }
    }
  };
  visit(context, 1);
  const text = parts.join(' ');
  return text.length > maxChars ? text.slice(0, maxChars) : text;
}

export function isStopWord(folded: string, language: Language): boolean {
  if (STOP[language].has(folded)) return true;
  return language !== Language.EN && STOP.en.has(folded);
}

// Stemming is the costliest step of analysing a request; words repeat across requests.
const STEM_CACHE = new Map<string, string>();
const MAX_STEM_CACHE = 100_000;

export function stem(folded: string, language: Language): string {
  const key = language + folded;
  const hit = STEM_CACHE.get(key);
  if (hit !== undefined) return hit;
  const result = fold(STEMMERS[language](folded));
  if (STEM_CACHE.size >= MAX_STEM_CACHE) STEM_CACHE.clear();
  STEM_CACHE.set(key, result);
  return result;
}

/**
 * Guesses the language of a query by counting stop words of each language. English wins ties and
 * short queries: a foreign language needs at least two stop-word hits more than English.
 */
export function detectLanguage(tokens: readonly Token[]): Language {
  const counts: Record<Language, number> = { en: 0, es: 0, fr: 0, de: 0 };
  for (const token of tokens) {
    for (const lang of Object.values(Language)) {
      if (lang !== Language.EN && ENGLISH_TOPIC_WORDS.has(token.folded)) continue;
      if (STOP[lang].has(token.folded)) counts[lang] += 1;
    }
  }
  let best: Language = Language.EN;
  for (const lang of [Language.ES, Language.FR, Language.DE]) {
    if (counts[lang] >= counts.en + 2 && counts[lang] > counts[best]) best = lang;
    else if (best === Language.EN && counts[lang] >= 2 && counts[lang] > counts.en) best = lang;
  }
  return best;
}
