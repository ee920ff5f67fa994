/**
 * The terms a question gives its assistant's topics leave names out: the asker's own name and
 * email words however they are written, and any capitalized word inside a sentence; common words,
 * short words and repeats are dropped, and no more than the maximum are taken.
 */
import { describe, expect, it } from 'vitest';
import { nameWords, questionTerms } from './question-terms.js';

const NONE = new Set<string>();

describe('question terms', () => {
  it('takes the first content words, lower-cased, once each', () => {
    expect(questionTerms('Photosynthesis: how does photosynthesis use chlorophyll and light?', { excluded: NONE, maximum: 5 })).toEqual([
      'photosynthesis',
      'chlorophyll',
      'light',
    ]);
  });

  it("leaves out the asker's own name and email words, however written", () => {
    const excluded = nameWords('Zoraida Quintanilla', 'zq.student@school.example');
    const terms = questionTerms('i am zoraida quintanilla, student at school: what is osmosis?', { excluded, maximum: 10 });
    expect(terms).toEqual(['osmosis']);
  });

  it('leaves out capitalized words inside a sentence, as names are written, but not a sentence’s first word', () => {
    expect(questionTerms('Meiosis puzzles me. Did Bartholomew explain meiosis to Xenakis?', { excluded: NONE, maximum: 10 })).toEqual([
      'meiosis',
      'puzzles',
    ]);
  });

  it('stops at the maximum and reads a huge question in one pass', () => {
    expect(questionTerms('alpha bravo charlie delta echo foxtrot', { excluded: NONE, maximum: 2 })).toEqual(['alpha', 'bravo']);
    const huge = `${'a'.repeat(100_000)}!`;
    expect(questionTerms(huge, { excluded: NONE, maximum: 5 })).toEqual([]);
  });
});
