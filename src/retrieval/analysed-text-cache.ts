/**
 * The terms of stored chunk texts as the proximity re-rank reads them, kept per process and
 * bounded by the characters of text they were made from. A knowledge base's best chunks are
 * re-ranked on query after query, and analysing their text again (Unicode words, stop words,
 * stems) was over half of a re-rank's own cost. Entries are found by chunk id and used only when
 * their language and text equal the candidate's (one comparison of the text, no hashing of it), so
 * an entry can never be stale. Past `charactersMaximum` the least recently used entries are
 * dropped; 0 keeps nothing.
 */
import { SizeBoundedCache } from '../caching/size-bounded-cache.js';
import type { TextAnalyzer } from '../store/text-analysis.js';

interface Entry {
  language: string;
  text: string;
  terms: readonly string[];
}

export class AnalysedTextCache {
  private readonly entries: SizeBoundedCache<number, Entry>;

  constructor(charactersMaximum: number) {
    this.entries = new SizeBoundedCache(charactersMaximum, (entry) => entry.text.length);
  }

  /** The terms `analyzer` gives the text of chunk `chunkId`, from memory when the same text was analysed lately. */
  terms(analyzer: TextAnalyzer, chunkId: number, text: string): readonly string[] {
    const cached = this.entries.get(chunkId);
    if (cached !== undefined && cached.language === analyzer.language && cached.text === text) return cached.terms;
    const terms = analyzer.terms(text);
    this.entries.set(chunkId, { language: analyzer.language, text, terms });
    return terms;
  }

  /** Characters of text whose terms are held now. */
  get heldCharacters(): number {
    return this.entries.heldSize;
  }
}
