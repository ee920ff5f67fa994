/** Full-text ranking as the server's settings give it (README settings table; docs/knowledge-bases.md). */
import type { Settings } from '../config/settings.js';
import { AnalysedTextCache } from './analysed-text-cache.js';
import type { FullTextRanking } from './full-text-ranking.js';

/** One process's ranking: its re-rank cache lives as long as the services do. */
export function fullTextRankingOf(settings: Settings): FullTextRanking {
  return {
    proximity: true,
    feedback: settings.fullTextQueryExpansion,
    candidates: settings.fullTextRerankCandidates,
    analysedTexts: new AnalysedTextCache(settings.fullTextRerankCacheCharacters),
  };
}
