import { describe, expect, it } from 'vitest';
import { textAnalyzer } from '../store/text-analysis.js';
import { analysedTextOf } from './analysed-text.js';
import { AnalysedTextCache } from './analysed-text-cache.js';

describe('the analysed text cache of the proximity re-rank', () => {
  const english = textAnalyzer('english');
  const spanish = textAnalyzer('spanish');

  it("gives the analyzer's terms, from memory only for the same chunk, language and text", () => {
    const cache = new AnalysedTextCache(10_000);
    const text = 'Las células convierten la glucosa en energía';
    const first = cache.text(spanish, 1, text);
    expect(first).toEqual(analysedTextOf(spanish.terms(text)));
    expect(cache.text(spanish, 1, text)).toBe(first);
    // The knowledge base was reindexed into another language: the same chunk gets that language's terms.
    expect(cache.text(english, 1, text)).toEqual(analysedTextOf(english.terms(text)));
    // Another text under a known id (a restored store, say) is analysed, never answered from memory.
    expect(cache.text(english, 1, 'Cells turn glucose into energy')).toEqual(
      analysedTextOf(english.terms('Cells turn glucose into energy')),
    );
    expect(cache.heldCharacters).toBe('Cells turn glucose into energy'.length);
  });

  it('holds at most its characters, dropping the least recently used first', () => {
    const text = (index: number) => `chunk ${index} about cells and glucose`.padEnd(100, '.');
    const cache = new AnalysedTextCache(350);
    const kept = cache.text(english, 0, text(0));
    const dropped = cache.text(english, 1, text(1));
    cache.text(english, 2, text(2));
    expect(cache.text(english, 0, text(0))).toBe(kept); // used again: now the most recent
    cache.text(english, 3, text(3)); // 400 characters: chunk 1, the least recently used, goes
    expect(cache.heldCharacters).toBe(300);
    expect(cache.text(english, 0, text(0))).toBe(kept);
    expect(cache.text(english, 1, text(1))).not.toBe(dropped);
  });

  it('keeps nothing at 0, and no text longer than its bound', () => {
    const none = new AnalysedTextCache(0);
    const first = none.text(english, 1, 'cells turn glucose into energy');
    expect(none.text(english, 1, 'cells turn glucose into energy')).not.toBe(first);
    expect(none.heldCharacters).toBe(0);
    const small = new AnalysedTextCache(10);
    small.text(english, 1, 'a text longer than ten characters');
    expect(small.heldCharacters).toBe(0);
    const metadata = Object.freeze({ title: 'Cells' });
    expect(none.title(english, metadata)).not.toBe(none.title(english, metadata));
  });

  it('keeps a title by its frozen metadata object and language, and analyses metadata that could change every time', () => {
    const cache = new AnalysedTextCache(10_000);
    const metadata = Object.freeze({ title: 'Células', heading: 'Energía > Glucosa' });
    const first = cache.title(spanish, metadata);
    expect(first).toEqual(analysedTextOf(spanish.terms('Células Energía > Glucosa')));
    expect(cache.title(spanish, metadata)).toBe(first);
    expect(cache.title(english, metadata)).toEqual(analysedTextOf(english.terms('Células Energía > Glucosa')));
    // An equal but distinct object is another chunk's: analysed on its own.
    expect(cache.title(english, Object.freeze({ ...metadata }))).not.toBe(cache.title(english, metadata));
    const open: Record<string, unknown> = { title: 'Cells' };
    const before = cache.title(english, open);
    open.title = 'Glucose';
    expect(cache.title(english, open)).not.toEqual(before);
    expect(cache.title(english, open)).toEqual(analysedTextOf(english.terms('Glucose')));
  });
});
