/**
 * The words full-text search indexes and looks up, for one language: text split into runs of
 * Unicode letters and digits, NFKC-normalised and lower-cased, stop words dropped, each word cut
 * to its Snowball stem, then stripped of accents. Chunks and queries go through the same analysis
 * (the knowledge base's `search_language`), so they meet on the same terms on SQLite and
 * PostgreSQL alike. `none` keeps every word whole (only lower-cased and stripped of accents).
 */
import { newWordStemmer, type WordStemmer } from './word-stemmer.js';
import { cat, deu, eng, eus, fra, ita, por, spa } from 'stopword';

export const SEARCH_LANGUAGES = ['english', 'spanish', 'catalan', 'basque', 'french', 'german', 'italian', 'portuguese', 'none'] as const;
export type SearchLanguage = (typeof SEARCH_LANGUAGES)[number];

/** What knowledge bases made before languages were chosen keep, and what a new one gets unless told. */
export const DEFAULT_SEARCH_LANGUAGE: SearchLanguage = 'english';

const SEARCH_LANGUAGE_OF_TAG: Readonly<Record<string, SearchLanguage>> = {
  en: 'english',
  es: 'spanish',
  ca: 'catalan',
  eu: 'basque',
  fr: 'french',
  de: 'german',
  it: 'italian',
  pt: 'portuguese',
};

/** The search language a BCP-47 tag names (`es-MX` → spanish); the default for no tag or another language. */
export function searchLanguageOfTag(tag: string | null): SearchLanguage {
  const primary = tag?.split('-')[0]?.toLowerCase();
  return (primary !== undefined ? SEARCH_LANGUAGE_OF_TAG[primary] : undefined) ?? DEFAULT_SEARCH_LANGUAGE;
}

const STOP_WORDS: Record<Exclude<SearchLanguage, 'none'>, readonly string[]> = {
  english: eng,
  spanish: spa,
  catalan: cat,
  basque: eus,
  french: fra,
  german: deu,
  italian: ita,
  portuguese: por,
};

/** Longer "words" are base64, hashes or URLs run together: indexed whole but never stemmed. */
const STEMMED_LENGTH_MAXIMUM = 40;
/** Longer runs are cut: a term is a B-tree key on both stores, and no real word is this long. */
export const TERM_LENGTH_MAXIMUM = 100;
/** Stems remembered per language: natural text reuses a few thousand words, so most lookups hit. */
const STEM_CACHE_MAXIMUM = 50_000;

/**
 * Letters (with their combining marks) and digits; a Catalan middle dot between letters
 * (`col·legi`) stays inside the word, an apostrophe splits (`l'escola` → `l`, `escola`).
 */
const WORD_PATTERN = /[\p{L}\p{N}][\p{L}\p{M}\p{N}]*(?:·[\p{L}][\p{L}\p{M}\p{N}]*)*/gu;
const COMBINING_MARKS = /\p{M}/gu;

function withoutAccents(word: string): string {
  return word.normalize('NFD').replace(COMBINING_MARKS, '').normalize('NFC');
}

export interface TextAnalyzer {
  language: SearchLanguage;
  /** The terms of `text` in order, repeats kept (their counts are term frequencies). */
  terms(text: string): string[];
}

function makeAnalyzer(language: SearchLanguage): TextAnalyzer {
  const stopWords = new Set(language === 'none' ? [] : STOP_WORDS[language]);
  const stemmer: WordStemmer | undefined = language === 'none' ? undefined : newWordStemmer(language);
  const cache = new Map<string, string | null>();
  // Stemming runs on the accented word (the Snowball rules are written for it); the stem then
  // loses its accents, so "Información" and "información" meet, and so do "café" and "cafe".
  const termOf = (word: string): string | null => {
    if (stopWords.has(word)) return null;
    const stem = stemmer !== undefined && word.length <= STEMMED_LENGTH_MAXIMUM ? stemmer.stem(word) : word;
    const term = withoutAccents(stem).slice(0, TERM_LENGTH_MAXIMUM);
    return term === '' ? null : term;
  };
  return {
    language,
    terms(text) {
      const terms: string[] = [];
      for (const match of text.normalize('NFKC').toLowerCase().matchAll(WORD_PATTERN)) {
        const word = match[0];
        let term = cache.get(word);
        if (term === undefined) {
          term = termOf(word);
          if (cache.size >= STEM_CACHE_MAXIMUM) cache.clear();
          cache.set(word, term);
        }
        if (term !== null) terms.push(term);
      }
      return terms;
    },
  };
}

const analyzers = new Map<SearchLanguage, TextAnalyzer>();

/** The analyzer of a language, made once; an unknown language (a row written by a newer version) reads as the default. */
export function textAnalyzer(language: string): TextAnalyzer {
  const known: SearchLanguage = (SEARCH_LANGUAGES as readonly string[]).includes(language)
    ? (language as SearchLanguage)
    : DEFAULT_SEARCH_LANGUAGE;
  let analyzer = analyzers.get(known);
  if (analyzer === undefined) {
    analyzer = makeAnalyzer(known);
    analyzers.set(known, analyzer);
  }
  return analyzer;
}

/** Each distinct term of a list with how often it occurs. */
export function termFrequencies(terms: readonly string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const term of terms) counts.set(term, (counts.get(term) ?? 0) + 1);
  return counts;
}

/**
 * BM25F weight of a chunk's title field (its document's `title` and its section's heading path)
 * against its text (1). A title is written to name what the whole text is about, so a word in it
 * counts as a word said twice in the text: the smallest weight that makes it stronger evidence
 * than one mention, without letting a title word outweigh a text that keeps returning to a topic
 * (BM25's saturation caps any one term's part). Chosen before measuring, not fitted to a data set.
 */
export const TITLE_FIELD_WEIGHT = 2;

/** The text of a chunk's title field: its document's title and its heading path, where it has them. */
function titleFieldText(metadata: string): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(metadata);
  } catch {
    return '';
  }
  if (typeof parsed !== 'object' || parsed === null) return '';
  const { title, heading } = parsed as Record<string, unknown>;
  return titleFieldOf(title, heading);
}

export interface AnalysedChunk {
  /** term → field-weighted frequency. */
  frequencies: Map<string, number>;
  /** Field-weighted length: text terms plus TITLE_FIELD_WEIGHT times title terms. */
  length: number;
  /**
   * The title field's own length in terms (unweighted): BM25F proper normalises each field by its
   * own length against that field's average (field-weighted-bm25.ts), so the index keeps it too.
   */
  titleLength: number;
}

/** A stored chunk's BM25F view, its title field read from its metadata. */
export function analyseChunk(analyzer: TextAnalyzer, text: string, metadata: string): AnalysedChunk {
  return analyseFields(analyzer, text, titleFieldText(metadata));
}

/** The title field of a chunk being made: its document's title and its heading, where it has them. */
export function titleFieldOf(title: unknown, heading: unknown): string {
  return [title, heading].filter((value): value is string => typeof value === 'string').join('\n');
}

/** A chunk's BM25F view: each field's term counts, weighted and summed (Robertson, Zaragoza and Taylor's simple BM25F). */
export function analyseFields(analyzer: TextAnalyzer, text: string, titleField: string): AnalysedChunk {
  const body = analyzer.terms(text);
  const title = analyzer.terms(titleField);
  const frequencies = termFrequencies(body);
  for (const [term, count] of termFrequencies(title)) frequencies.set(term, (frequencies.get(term) ?? 0) + TITLE_FIELD_WEIGHT * count);
  return { frequencies, length: body.length + TITLE_FIELD_WEIGHT * title.length, titleLength: title.length };
}
