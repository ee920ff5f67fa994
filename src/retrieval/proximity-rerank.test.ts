import { describe, expect, it } from 'vitest';
import { analysedTextOf } from './analysed-text.js';
import { phraseCount, positionsOf, PROXIMITY_WINDOW, termPositionLists, windowCount } from './proximity-rerank.js';

/** The counts from the positions of the two terms in `terms` (one list when they are one term). */
function counts(terms: readonly string[], first: string, second: string): { phrases: number; windows: number } {
  const wanted = [...new Set([first, second])];
  // Lists left over from another text, to show that looking up replaces them.
  const lists = positionsOf(analysedTextOf(['x', first, 'x', second, first]), wanted, termPositionLists(wanted.length));
  const positions = positionsOf(analysedTextOf(terms), wanted, lists);
  const firstAt = positions[wanted.indexOf(first)]!;
  const secondAt = positions[wanted.indexOf(second)]!;
  return { phrases: phraseCount(firstAt, secondAt), windows: windowCount(firstAt, secondAt, PROXIMITY_WINDOW) };
}

/** Indri's `#1` and `#uwN` read straight off the term sequence, as their definitions say. */
function countsByDefinition(terms: readonly string[], first: string, second: string): { phrases: number; windows: number } {
  let phrases = 0;
  for (let index = 0; index + 1 < terms.length; index += 1) if (terms[index] === first && terms[index + 1] === second) phrases += 1;
  const used = new Array<boolean>(terms.length).fill(false);
  let windows = 0;
  for (let start = 0; start < terms.length; start += 1) {
    const term = terms[start];
    if (used[start] || (term !== first && term !== second)) continue;
    const other = term === first ? second : first;
    for (let next = start + 1; next < Math.min(terms.length, start + PROXIMITY_WINDOW); next += 1) {
      if (!used[next] && terms[next] === other) {
        used[start] = used[next] = true;
        windows += 1;
        break;
      }
    }
  }
  return { phrases, windows };
}

describe('term proximity counts', () => {
  it('counts a phrase only in the query order, directly adjacent', () => {
    expect(counts(['solar', 'panel', 'x', 'panel', 'solar', 'solar', 'panel'], 'solar', 'panel').phrases).toBe(2);
    expect(counts(['solar', 'x', 'panel'], 'solar', 'panel').phrases).toBe(0);
    expect(counts(['very', 'very', 'very'], 'very', 'very').phrases).toBe(2);
  });

  it('counts both terms in either order within the window, each occurrence once', () => {
    const gap = (count: number) => Array.from({ length: count }, (_, index) => `filler${index}`);
    expect(counts(['panel', ...gap(PROXIMITY_WINDOW - 2), 'solar'], 'solar', 'panel').windows).toBe(1);
    expect(counts(['panel', ...gap(PROXIMITY_WINDOW - 1), 'solar'], 'solar', 'panel').windows).toBe(0);
    expect(counts(['solar', 'panel', 'solar'], 'solar', 'panel').windows).toBe(1);
    expect(counts(['solar', 'panel', 'panel', 'solar'], 'solar', 'panel').windows).toBe(2);
    expect(counts(['very', 'x', 'very', 'very'], 'very', 'very').windows).toBe(1);
  });

  it('agrees with the definitions read off the term sequence, on many random sequences', () => {
    let seed = 7;
    const random = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
      return seed / 2_147_483_648;
    };
    const vocabulary = ['solar', 'panel', 'roof', 'sun', 'cell'];
    for (let trial = 0; trial < 2_000; trial += 1) {
      const terms = Array.from({ length: Math.floor(random() * 40) }, () => vocabulary[Math.floor(random() * vocabulary.length)]!);
      const first = vocabulary[Math.floor(random() * 3)]!;
      const second = vocabulary[Math.floor(random() * 3)]!;
      expect(counts(terms, first, second), `${terms.join(' ')} / ${first} ${second}`).toEqual(countsByDefinition(terms, first, second));
    }
  });
});
