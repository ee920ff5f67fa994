/**
 * The faster stemmer of each language gives exactly the stems of the reference Snowball
 * implementation (`snowball-stemmers`), so indexes written before it need no reindexing: checked
 * on the stop words of every language, and on each of them with the suffixes Snowball's rules for
 * the language remove (derivational, inflectional, verb and case endings), so every step of the
 * rules is exercised. Spanish and Portuguese use the reference itself, so are not checked here.
 */
import { describe, expect, it } from 'vitest';
import { cat, deu, eng, eus, fra, ita, por, spa } from 'stopword';
import { newWordStemmer, PORTED_LANGUAGES, referenceWordStemmer, type StemmedLanguage } from './word-stemmer.js';

const SUFFIXES: Partial<Record<StemmedLanguage, readonly string[]>> = {
  english: ['s', 'es', 'ed', 'ing', 'ly', 'ness', 'ational', 'ization', 'fulness', 'ously', 'ities', 'ement', 'able', 'ive'],
  catalan: ['s', 'ció', 'cions', 'ment', 'itat', 'ant', 'ava', 'ats', 'eres', 'ístic', 'ència'],
  basque: ['ak', 'aren', 'arekin', 'etan', 'tik', 'ko', 'rekin', 'tasun', 'garri', 'ezin', 'tzaile'],
  french: ['s', 'ement', 'ation', 'issement', 'euse', 'ités', 'ions', 'aient', 'ées', 'ière', 'ité'],
  german: ['e', 'en', 'ungen', 'lich', 'keit', 'heit', 'isch', 'ern', 'est', 'end', 'igkeit'],
  italian: ['i', 'zione', 'mente', 'ità', 'ando', 'endo', 'issimo', 'ato', 'ete', 'amento', 'ista'],
};

/** Every language's stop words (real words of all eight), each also with every suffix of `language`. */
function wordsFor(language: StemmedLanguage): string[] {
  const words = new Set<string>();
  for (const list of [cat, deu, eng, eus, fra, ita, por, spa])
    for (const entry of list) for (const word of entry.toLowerCase().split(/[^\p{L}\p{M}·]+/u)) if (word !== '') words.add(word);
  const stems = [...words];
  for (const word of stems) for (const suffix of SUFFIXES[language] ?? []) words.add(word + suffix);
  return [...words];
}

describe('word stemmers', () => {
  it('are ported for the languages whose suffixes this test knows', () => {
    expect([...PORTED_LANGUAGES].sort()).toEqual(Object.keys(SUFFIXES).sort());
  });

  it.each(PORTED_LANGUAGES)('stem %s words exactly as the reference Snowball implementation', (language) => {
    const words = wordsFor(language);
    const stemmer = newWordStemmer(language);
    const reference = referenceWordStemmer(language);
    const differing = words.filter((word) => stemmer.stem(word) !== reference.stem(word));
    expect(words.length).toBeGreaterThan(10_000);
    expect(differing).toEqual([]);
  });

  it('change a word that has a suffix to remove', () => {
    expect(newWordStemmer('english').stem('connections')).toBe('connect');
    expect(newWordStemmer('catalan').stem('connexions')).not.toBe('connexions');
  });
});
