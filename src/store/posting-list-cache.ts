/**
 * Posting lists held in memory per process (FULL_TEXT_POSTINGS_CACHE), for the BM25 pass of a
 * full-text search (chunk-search-repository.ts). A knowledge base is asked about the same few
 * subjects query after query, and reading and grouping their postings in SQL was most of a
 * search's cost (docs/throughput.md). Each list is kept with the knowledge base's index version
 * it was read at (migration 0097) and used only while the version a search reads is the same, so a
 * list is never stale, whichever process changed the index. Past `postingsMaximum` postings, the
 * least recently used lists are dropped; 0 keeps nothing.
 */
import { SizeBoundedCache } from '../caching/size-bounded-cache.js';

/** A term's postings in one knowledge base: a chunk, its field-weighted frequency and its field-weighted length, by position. */
export interface PostingList {
  chunkIds: Int32Array;
  frequencies: Float64Array;
  lengths: Float64Array;
}

interface Entry {
  version: number;
  list: PostingList;
}

function keyOf(knowledgeBaseId: number, term: string): string {
  return `${knowledgeBaseId} ${term}`;
}

export class PostingListCache {
  /** An empty list (a term the knowledge base lacks) still takes a place. */
  private readonly lists: SizeBoundedCache<string, Entry>;

  constructor(postingsMaximum: number) {
    this.lists = new SizeBoundedCache(postingsMaximum, (entry) => Math.max(1, entry.list.chunkIds.length));
  }

  /** The list of `term` in the knowledge base at `version`, when held; a list held at another version is dropped. */
  get(knowledgeBaseId: number, version: number, term: string): PostingList | undefined {
    const key = keyOf(knowledgeBaseId, term);
    const entry = this.lists.get(key);
    if (entry === undefined) return undefined;
    if (entry.version === version) return entry.list;
    this.lists.delete(key);
    return undefined;
  }

  /** Keeps `list` as the term's list at `version`. */
  set(knowledgeBaseId: number, version: number, term: string, list: PostingList): void {
    this.lists.set(keyOf(knowledgeBaseId, term), { version, list });
  }

  /** Postings held now (an empty list counting one). */
  get heldPostings(): number {
    return this.lists.heldSize;
  }
}
