/**
 * The Snowball stemmer of each search language, from the faster of two libraries that give the
 * same stems. Stemming a word not yet in an analyzer's cache was most of the document worker
 * threads' time on new text, and every new thread starts with an empty cache: `snowball-stemmers`
 * (a translation of Snowball's Java) took 7 to 28 µs a word, the Snowball ports of `@nlpjs/lang-*`
 * 2 to 5 µs. Those ports gave the same stems as `snowball-stemmers` for English, Catalan, Basque,
 * French, German and Italian on every string tried (72,000 to 90,000 a language: a corpus's words,
 * the stop words of every language, and words with each language's suffixes added;
 * `word-stemmer.test.ts` keeps checking), so the index is unchanged and nothing needs reindexing.
 * For Spanish and Portuguese they do not (22,550 and 30 strings differ), so those keep
 * `snowball-stemmers`. Each port is loaded only when its language is first used, and driven
 * through its Snowball methods (`setCurrent`, `innerStem`, `getCurrent`) rather than `stemWord`,
 * which keeps every word it has seen in a cache without bound; the analyzer's own cache is bounded.
 */
import { createRequire } from 'node:module';
import type * as SnowballStemmers from 'snowball-stemmers';
import type { SearchLanguage } from './text-analysis.js';

export type StemmedLanguage = Exclude<SearchLanguage, 'none'>;

export interface WordStemmer {
  stem(word: string): string;
}

/** What a `@nlpjs/lang-*` stemmer offers as Snowball's generated code does. */
interface SnowballProgram {
  setCurrent(word: string): void;
  innerStem(): unknown;
  getCurrent(): string;
}

// Named `require` so that tools that trace dependencies (knip) see each module it loads.
const require = createRequire(import.meta.url);

/** Each port's module, named in full so that it is loaded only for a language in use. */
const PORTS: Partial<Record<StemmedLanguage, () => new () => SnowballProgram>> = {
  english: () => require('@nlpjs/lang-en-min/src/stemmer-en.js') as new () => SnowballProgram,
  catalan: () => require('@nlpjs/lang-ca/src/stemmer-ca.js') as new () => SnowballProgram,
  basque: () => require('@nlpjs/lang-eu/src/stemmer-eu.js') as new () => SnowballProgram,
  french: () => require('@nlpjs/lang-fr/src/stemmer-fr.js') as new () => SnowballProgram,
  german: () => require('@nlpjs/lang-de/src/stemmer-de.js') as new () => SnowballProgram,
  italian: () => require('@nlpjs/lang-it/src/stemmer-it.js') as new () => SnowballProgram,
};

/**
 * `snowball-stemmers` holds every language's stemmer in one module, about 115 ms of CPU to load:
 * loaded when a language without a port (Spanish, Portuguese) is first stemmed, not by every
 * process and document worker thread that starts.
 */
const snowballStemmers = (): typeof SnowballStemmers => require('snowball-stemmers') as typeof SnowballStemmers;

/** The languages stemmed by a port rather than by `snowball-stemmers`. */
export const PORTED_LANGUAGES = Object.keys(PORTS) as readonly StemmedLanguage[];

/** A new stemmer for `language`; like Snowball's own, it keeps state between calls, so each analyzer has its own. */
export function newWordStemmer(language: StemmedLanguage): WordStemmer {
  const port = PORTS[language];
  if (port === undefined) return snowballStemmers().newStemmer(language);
  const program = new (port())();
  return {
    stem(word) {
      program.setCurrent(word);
      program.innerStem();
      return program.getCurrent();
    },
  };
}

/** The reference implementation of every language, for checking the ports against it. */
export function referenceWordStemmer(language: StemmedLanguage): WordStemmer {
  return snowballStemmers().newStemmer(language);
}
