/**
 * The reindex job's analysis of chunks already stored (search-index-repository.ts), done on the
 * ingestion runner's document worker pool under the documents' budgets, so that no full-text
 * analysis runs on the event loop: a task with no file, only the chunks and their language.
 */
import type { Kysely } from 'kysely';
import type { Database } from '../store/schema.js';
import { reindexNextBatch, type ReindexStep, type StoredChunkAnalysis } from '../store/search-index-repository.js';
import type { DocumentWorkerPool } from './document-worker-pool.js';

/** Analysis of stored chunks on the pool `pool()` gives (made when first needed). */
function storedChunkAnalysisOn(pool: () => DocumentWorkerPool): StoredChunkAnalysis {
  return async (language, stored) => {
    const processed = await pool().process({
      fileName: 'stored-chunks.txt',
      bytes: new Uint8Array(0),
      limits: {},
      chunking: { chunkSize: 1000, chunkOverlap: 0 },
      search: { language, stored },
    });
    return processed.analysed ?? [];
  };
}

/** One step of the reindex job (reindexNextBatch), its analysis on the pool; undefined when nothing waits. */
export function reindexNextBatchOnPool(db: Kysely<Database>, pool: () => DocumentWorkerPool): Promise<ReindexStep | undefined> {
  return reindexNextBatch(db, { analyse: storedChunkAnalysisOn(pool) });
}
