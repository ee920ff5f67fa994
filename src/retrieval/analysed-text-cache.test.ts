import { describe, expect, it } from 'vitest';
import { textAnalyzer } from '../store/text-analysis.js';
import { AnalysedTextCache } from './analysed-text-cache.js';

describe('the analysed text cache of the proximity re-rank', () => {
  const english = textAnalyzer('english');
  const spanish = textAnalyzer('spanish');

  it("gives the analyzer's terms, from memory only for the same chunk, language and text", () => {
    const cache = new AnalysedTextCache(10_000);
    const text = 'Las células convierten la glucosa en energía';
    const first = cache.terms(spanish, 1, text);
    expect(first).toEqual(spanish.terms(text));
    expect(cache.terms(spanish, 1, text)).toBe(first);
    // The knowledge base was reindexed into another language: the same chunk gets that language's terms.
    expect(cache.terms(english, 1, text)).toEqual(english.terms(text));
    // Another text under a known id (a restored store, say) is analysed, never answered from memory.
    expect(cache.terms(english, 1, 'Cells turn glucose into energy')).toEqual(english.terms('Cells turn glucose into energy'));
    expect(cache.heldCharacters).toBe('Cells turn glucose into energy'.length);
  });

  it('holds at most its characters, dropping the least recently used first', () => {
    const text = (index: number) => `chunk ${index} about cells and glucose`.padEnd(100, '.');
    const cache = new AnalysedTextCache(350);
    const kept = cache.terms(english, 0, text(0));
    const dropped = cache.terms(english, 1, text(1));
    cache.terms(english, 2, text(2));
    expect(cache.terms(english, 0, text(0))).toBe(kept); // used again: now the most recent
    cache.terms(english, 3, text(3)); // 400 characters: chunk 1, the least recently used, goes
    expect(cache.heldCharacters).toBe(300);
    expect(cache.terms(english, 0, text(0))).toBe(kept);
    expect(cache.terms(english, 1, text(1))).not.toBe(dropped);
  });

  it('keeps nothing at 0, and no text longer than its bound', () => {
    const none = new AnalysedTextCache(0);
    const first = none.terms(english, 1, 'cells turn glucose into energy');
    expect(none.terms(english, 1, 'cells turn glucose into energy')).not.toBe(first);
    expect(none.heldCharacters).toBe(0);
    const small = new AnalysedTextCache(10);
    small.terms(english, 1, 'a text longer than ten characters');
    expect(small.heldCharacters).toBe(0);
  });
});
