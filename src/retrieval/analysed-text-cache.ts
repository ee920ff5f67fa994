/**
 * The terms of stored chunk texts as the proximity re-rank reads them, kept per process and
 * bounded by the characters of text they were made from. A knowledge base's best chunks are
 * re-ranked on query after query, and analysing their text again (Unicode words, stop words,
 * stems) was over half of a re-rank's own cost. Entries are found by chunk id and used only when
 * their language and text equal the candidate's (one comparison of the text, no hashing of it), so
 * an entry can never be stale. Past `charactersMaximum` the least recently used entries are
 * dropped; 0 keeps nothing.
 */
import type { TextAnalyzer } from '../store/text-analysis.js';

interface Entry {
  language: string;
  text: string;
  terms: readonly string[];
}

export class AnalysedTextCache {
  // A Map iterates in insertion order: re-inserting on every hit keeps the least recently used first.
  private readonly entries = new Map<number, Entry>();
  private characters = 0;

  constructor(private readonly charactersMaximum: number) {}

  /** The terms `analyzer` gives the text of chunk `chunkId`, from memory when the same text was analysed lately. */
  terms(analyzer: TextAnalyzer, chunkId: number, text: string): readonly string[] {
    const cached = this.entries.get(chunkId);
    if (cached !== undefined) {
      this.entries.delete(chunkId);
      if (cached.language === analyzer.language && cached.text === text) {
        this.entries.set(chunkId, cached);
        return cached.terms;
      }
      this.characters -= cached.text.length;
    }
    const terms = analyzer.terms(text);
    if (text.length > this.charactersMaximum) return terms;
    this.entries.set(chunkId, { language: analyzer.language, text, terms });
    this.characters += text.length;
    for (const [oldestId, oldest] of this.entries) {
      if (this.characters <= this.charactersMaximum) break;
      this.entries.delete(oldestId);
      this.characters -= oldest.text.length;
    }
    return terms;
  }

  /** Characters of text whose terms are held now. */
  get heldCharacters(): number {
    return this.characters;
  }
}
