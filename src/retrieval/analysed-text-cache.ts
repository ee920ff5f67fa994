/**
 * Stored chunks' texts and titles as the proximity re-rank reads them (analysed-text.ts), kept per
 * process. A knowledge base's best chunks are re-ranked on query after query, and analysing their
 * text again (Unicode words, stop words, stems) was over half of a re-rank's own cost.
 *
 * Texts are found by chunk id and used only when their language and text equal the candidate's
 * (one comparison of the text, no hashing of it), so an entry can never be stale; they are bounded
 * by the characters of text they were made from: past `charactersMaximum` the least recently used
 * are dropped, and 0 keeps nothing. Titles are found by the chunk's metadata object, which a search
 * gives frozen and shared by every hit of the chunk (chunk-row-cache.ts): an entry lives as long
 * as that object, and never outlives what it was made from. Metadata that is not frozen is analysed
 * every time, since it could change.
 */
import { SizeBoundedCache } from '../caching/size-bounded-cache.js';
import { titleFieldOf, type TextAnalyzer } from '../store/text-analysis.js';
import { analysedTextOf, type AnalysedText } from './analysed-text.js';

interface TextEntry {
  language: string;
  text: string;
  analysed: AnalysedText;
}

interface TitleEntry {
  language: string;
  analysed: AnalysedText;
}

export class AnalysedTextCache {
  private readonly texts: SizeBoundedCache<number, TextEntry>;
  private readonly titles = new WeakMap<object, TitleEntry>();

  constructor(private readonly charactersMaximum: number) {
    this.texts = new SizeBoundedCache(charactersMaximum, (entry) => entry.text.length);
  }

  /** Chunk `chunkId`'s text as `analyzer` reads it, from memory when the same text was analysed lately. */
  text(analyzer: TextAnalyzer, chunkId: number, text: string): AnalysedText {
    const cached = this.texts.get(chunkId);
    if (cached !== undefined && cached.language === analyzer.language && cached.text === text) return cached.analysed;
    const analysed = analysedTextOf(analyzer.terms(text));
    this.texts.set(chunkId, { language: analyzer.language, text, analysed });
    return analysed;
  }

  /** The title field (its document's title and heading path) of the chunk whose metadata this is, as `analyzer` reads it. */
  title(analyzer: TextAnalyzer, metadata: Readonly<Record<string, unknown>>): AnalysedText {
    const cached = this.titles.get(metadata);
    if (cached !== undefined && cached.language === analyzer.language) return cached.analysed;
    const analysed = analysedTextOf(analyzer.terms(titleFieldOf(metadata.title, metadata.heading)));
    if (this.charactersMaximum > 0 && Object.isFrozen(metadata)) this.titles.set(metadata, { language: analyzer.language, analysed });
    return analysed;
  }

  /** Characters of text whose terms are held now. */
  get heldCharacters(): number {
    return this.texts.heldSize;
  }
}
