import { describe, expect, it } from 'vitest';
import { SizeBoundedCache } from './size-bounded-cache.js';

describe('the size bound of the per-process caches', () => {
  it('holds at most its bound, dropping the least recently used entries first', () => {
    const cache = new SizeBoundedCache<string, string>(6, (value) => value.length);
    cache.set('a', 'aaa');
    cache.set('b', 'bb');
    cache.set('c', 'c');
    expect(cache.heldSize).toBe(6);
    expect(cache.get('a')).toBe('aaa');
    cache.set('d', 'd');
    // 'b' was used least lately: it goes, 'a' (just read) stays.
    expect(cache.get('b')).toBeUndefined();
    expect(cache.get('a')).toBe('aaa');
    expect(cache.get('c')).toBe('c');
    expect(cache.heldSize).toBe(5);
  });

  it('replaces what a key held, forgets a deleted key, and never keeps a value larger than the bound', () => {
    const cache = new SizeBoundedCache<number, string>(3, (value) => value.length);
    cache.set(1, 'aa');
    cache.set(1, 'aaa');
    expect(cache.heldSize).toBe(3);
    expect(cache.get(1)).toBe('aaa');
    cache.set(2, 'bbbb');
    expect(cache.get(2)).toBeUndefined();
    // The oversized value replaced nothing it was refused for.
    expect(cache.get(1)).toBe('aaa');
    cache.delete(1);
    expect(cache.get(1)).toBeUndefined();
    expect(cache.heldSize).toBe(0);
  });

  it('keeps nothing with a bound of 0', () => {
    const cache = new SizeBoundedCache<string, string>(0, (value) => value.length);
    cache.set('a', 'a');
    expect(cache.get('a')).toBeUndefined();
    expect(cache.heldSize).toBe(0);
  });
});
