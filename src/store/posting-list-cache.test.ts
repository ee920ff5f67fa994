import { describe, expect, it } from 'vitest';
import { PostingListCache, type PostingList } from './posting-list-cache.js';

function listOf(...chunkIds: number[]): PostingList {
  return {
    chunkIds: Int32Array.from(chunkIds),
    frequencies: Float64Array.from(chunkIds.map(() => 1)),
    lengths: Float64Array.from(chunkIds.map(() => 10)),
  };
}

describe('the posting-list cache (FULL_TEXT_POSTINGS_CACHE)', () => {
  it('answers a list only at the index version it was kept at, and frees it once asked at another', () => {
    const cache = new PostingListCache(100);
    const list = listOf(1, 2, 3);
    cache.set(7, 4, 'galaxi', list);
    expect(cache.get(7, 4, 'galaxi')).toBe(list);
    expect(cache.get(8, 4, 'galaxi')).toBeUndefined();
    expect(cache.get(7, 4, 'star')).toBeUndefined();
    expect(cache.get(7, 5, 'galaxi')).toBeUndefined();
    expect(cache.heldPostings).toBe(0);
    expect(cache.get(7, 4, 'galaxi')).toBeUndefined();
  });

  it('counts postings against FULL_TEXT_POSTINGS_CACHE, an empty list as one, and keeps nothing with 0', () => {
    const cache = new PostingListCache(4);
    cache.set(1, 1, 'a', listOf(1, 2, 3));
    cache.set(1, 1, 'none', listOf());
    expect(cache.heldPostings).toBe(4);
    expect(cache.get(1, 1, 'none')?.chunkIds.length).toBe(0);
    cache.set(1, 1, 'b', listOf(4));
    expect(cache.get(1, 1, 'a')).toBeUndefined();
    expect(cache.heldPostings).toBe(2);
    const nothing = new PostingListCache(0);
    nothing.set(1, 1, 'a', listOf());
    expect(nothing.get(1, 1, 'a')).toBeUndefined();
  });
});
