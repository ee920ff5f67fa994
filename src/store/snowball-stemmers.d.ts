/** The part of snowball-stemmers (a CommonJS port of the Snowball stemmers, shipped without types) that Merino uses. */
declare module 'snowball-stemmers' {
  export interface Stemmer {
    stem(word: string): string;
  }
  export function newStemmer(algorithm: string): Stemmer;
  export function algorithms(): string[];
}
