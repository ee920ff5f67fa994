/** Full-text ranking as the server's settings give it (README settings table; docs/knowledge-bases.md). */
import type { Settings } from '../config/settings.js';
import { ChunkRowCache } from '../store/chunk-row-cache.js';
import { PostingListCache } from '../store/posting-list-cache.js';
import { AnalysedTextCache } from './analysed-text-cache.js';
import type { FullTextRanking } from './full-text-ranking.js';

/** One process's ranking: its caches live as long as the services do. */
export function fullTextRankingOf(settings: Settings): FullTextRanking {
  return {
    proximity: true,
    feedback: settings.fullTextQueryExpansion,
    candidates: settings.fullTextRerankCandidates,
    analysedTexts: new AnalysedTextCache(settings.fullTextRerankCacheCharacters),
    held: {
      postingLists: new PostingListCache(settings.fullTextPostingsCache),
      chunkRows: new ChunkRowCache(settings.fullTextChunkCacheCharacters),
    },
  };
}
