/**
 * Chunk rows held in memory per process (FULL_TEXT_CHUNK_CACHE_CHARACTERS), for full-text search
 * (chunk-search-repository.ts): the proximity re-rank reads the text and title of each of a query's
 * 50 candidates, and the same chunks come back query after query. A chunk's row never changes once
 * written (only its index lengths do, which are not kept here), and ids are never used again
 * (SQLite AUTOINCREMENT, a PostgreSQL sequence), so an entry is never stale; a deleted chunk stops
 * being a candidate as soon as its knowledge base's index version moves (posting-list-cache.ts).
 * The metadata is kept parsed and frozen, since every hit of the chunk shares it. Past
 * `charactersMaximum` characters of text and metadata, the least recently used rows are dropped;
 * 0 keeps nothing.
 */
import { SizeBoundedCache } from '../caching/size-bounded-cache.js';

/** What a search hands on of a chunk's row. */
export interface HeldChunkRow {
  knowledgeBaseId: number;
  documentId: number;
  chunkIndex: number;
  text: string;
  metadata: Readonly<Record<string, unknown>>;
  /** The text and metadata's length, what the row counts against the bound. */
  characters: number;
}

function deepFreeze<Value>(value: Value): Value {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}

/** A row as the store gives it, with its metadata parsed once and frozen. */
export function heldChunkRowOf(row: {
  knowledge_base_id: number;
  document_id: number;
  chunk_index: number;
  text: string;
  metadata: string;
}): HeldChunkRow {
  return {
    knowledgeBaseId: row.knowledge_base_id,
    documentId: row.document_id,
    chunkIndex: row.chunk_index,
    text: row.text,
    metadata: deepFreeze(JSON.parse(row.metadata) as Record<string, unknown>),
    characters: row.text.length + row.metadata.length,
  };
}

export class ChunkRowCache {
  private readonly rows: SizeBoundedCache<number, HeldChunkRow>;

  constructor(charactersMaximum: number) {
    this.rows = new SizeBoundedCache(charactersMaximum, (row) => row.characters);
  }

  /** The row of chunk `chunkId`, when held. */
  get(chunkId: number): HeldChunkRow | undefined {
    return this.rows.get(chunkId);
  }

  /** Keeps the row of chunk `chunkId`. */
  set(chunkId: number, row: HeldChunkRow): void {
    this.rows.set(chunkId, row);
  }

  /** Characters of text and metadata held now. */
  get heldCharacters(): number {
    return this.rows.heldSize;
  }
}
