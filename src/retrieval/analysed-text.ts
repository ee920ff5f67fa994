/**
 * A text as the proximity re-rank reads it: how many terms it has, and where each term occurs.
 * Made once per chunk and kept (analysed-text-cache.ts), so that a re-rank looks up its few query
 * terms in each candidate instead of walking every term of every candidate: in a profile of
 * `bench/full-text-query-cost.bench.ts`, that walk was a quarter of a re-rank.
 *
 * Its distinct terms are kept sorted, with every position in one typed array grouped by term: a
 * map and an array for each term took 10.8 bytes of heap for each character of the DBpedia
 * abstracts, a list of the text's terms 3.1, and this form 2.5.
 */

export interface AnalysedText {
  /** How many terms the text has: its field's length. */
  length: number;
  /** Its distinct terms, in code-unit order. */
  terms: readonly string[];
  /** Where the positions of `terms[index]` begin in `positions`; one more entry holds the end. */
  starts: Int32Array;
  /** Every term's positions, grouped in the order of `terms`, each group ascending. */
  positions: Int32Array;
}

function compare(left: string, right: string): number {
  return left < right ? -1 : left > right ? 1 : 0;
}

export function analysedTextOf(terms: readonly string[]): AnalysedText {
  const order = Array.from(terms.keys()).sort((left, right) => compare(terms[left]!, terms[right]!) || left - right);
  const distinct: string[] = [];
  const starts: number[] = [];
  const positions = new Int32Array(terms.length);
  order.forEach((position, at) => {
    const term = terms[position]!;
    if (distinct.at(-1) !== term) {
      distinct.push(term);
      starts.push(at);
    }
    positions[at] = position;
  });
  starts.push(terms.length);
  return { length: terms.length, terms: distinct, starts: Int32Array.from(starts), positions };
}

/** The index of `term` among the text's distinct terms, or -1: a binary search. */
export function termIndexOf(text: AnalysedText, term: string): number {
  let low = 0;
  let high = text.terms.length - 1;
  while (low <= high) {
    const middle = (low + high) >>> 1;
    const order = compare(text.terms[middle]!, term);
    if (order === 0) return middle;
    if (order < 0) low = middle + 1;
    else high = middle - 1;
  }
  return -1;
}
