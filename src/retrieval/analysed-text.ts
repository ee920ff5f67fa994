/**
 * A text as the proximity re-rank reads it: how many terms it has, and where each term occurs.
 * Made once per chunk and kept (analysed-text-cache.ts), so that a re-rank looks up its few query
 * terms in each candidate instead of walking every term of every candidate: in a profile of
 * `bench/full-text-query-cost.bench.ts`, that walk was a quarter of a re-rank.
 */

export interface AnalysedText {
  /** How many terms the text has: its field's length. */
  length: number;
  /** Each term's positions in the text, ascending. */
  positions: ReadonlyMap<string, readonly number[]>;
}

export function analysedTextOf(terms: readonly string[]): AnalysedText {
  const positions = new Map<string, number[]>();
  for (let index = 0; index < terms.length; index += 1) {
    const term = terms[index]!;
    const list = positions.get(term);
    if (list === undefined) positions.set(term, [index]);
    else list.push(index);
  }
  return { length: terms.length, positions };
}
