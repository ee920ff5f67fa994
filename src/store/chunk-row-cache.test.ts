import { describe, expect, it } from 'vitest';
import { ChunkRowCache, heldChunkRowOf } from './chunk-row-cache.js';

const stored = (text: string, metadata: object) => ({
  knowledge_base_id: 3,
  document_id: 9,
  chunk_index: 0,
  text,
  metadata: JSON.stringify(metadata),
});

describe('the chunk-row cache (FULL_TEXT_CHUNK_CACHE_CHARACTERS)', () => {
  it('keeps a row with its metadata parsed and frozen all the way down', () => {
    const row = heldChunkRowOf(stored('Stars form in clouds.', { title: 'Stars', source: { pages: [1, 2] } }));
    expect(row).toMatchObject({ knowledgeBaseId: 3, documentId: 9, chunkIndex: 0, text: 'Stars form in clouds.' });
    expect(row.metadata).toEqual({ title: 'Stars', source: { pages: [1, 2] } });
    const source = row.metadata.source as { pages: number[] };
    expect(Object.isFrozen(row.metadata) && Object.isFrozen(source) && Object.isFrozen(source.pages)).toBe(true);
    expect(() => source.pages.push(3)).toThrow(TypeError);
  });

  it('counts the characters of text and metadata against its bound, and keeps nothing with 0', () => {
    const row = heldChunkRowOf(stored('abcd', {}));
    expect(row.characters).toBe(6);
    const cache = new ChunkRowCache(10);
    cache.set(1, row);
    cache.set(2, heldChunkRowOf(stored('efgh', {})));
    expect(cache.heldCharacters).toBe(6);
    expect(cache.get(1)).toBeUndefined();
    expect(cache.get(2)?.text).toBe('efgh');
    const nothing = new ChunkRowCache(0);
    nothing.set(1, row);
    expect(nothing.get(1)).toBeUndefined();
  });
});
