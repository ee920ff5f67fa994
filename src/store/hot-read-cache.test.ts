// Proves the per-process hot-read cache: a value is answered from memory until its lifetime has
// passed and read again after; it holds at most its maximum of entries, dropping the oldest; forget
// and clear take effect at once; and a lifetime of 0 keeps nothing.
import { describe, expect, it } from 'vitest';
import { HotReadCache } from './hot-read-cache.js';

const sleep = (milliseconds: number) => new Promise((resolve) => setTimeout(resolve, milliseconds));

describe('HotReadCache', () => {
  it('answers from memory within the lifetime and reads the store again after it', async () => {
    const cache = new HotReadCache<string, number>({ lifetimeMilliseconds: 50, entriesMaximum: 10 });
    let reads = 0;
    const load = async () => {
      reads += 1;
      return reads;
    };
    expect(await cache.read('key', load)).toBe(1);
    expect(await cache.read('key', load)).toBe(1);
    expect(reads).toBe(1);
    await sleep(120);
    expect(cache.get('key')).toBeUndefined();
    expect(await cache.read('key', load)).toBe(2);
    expect(reads).toBe(2);
  });

  it('keeps at most entriesMaximum entries, dropping the oldest', () => {
    const cache = new HotReadCache<number, string>({ lifetimeMilliseconds: 60_000, entriesMaximum: 2 });
    cache.set(1, 'one');
    cache.set(2, 'two');
    cache.set(3, 'three');
    expect(cache.get(1)).toBeUndefined();
    expect(cache.get(2)).toBe('two');
    expect(cache.get(3)).toBe('three');
  });

  it('forgets one entry, or all, at once', () => {
    const cache = new HotReadCache<number, string>({ lifetimeMilliseconds: 60_000, entriesMaximum: 10 });
    cache.set(1, 'one');
    cache.set(2, 'two');
    cache.forget(1);
    expect(cache.get(1)).toBeUndefined();
    expect(cache.get(2)).toBe('two');
    cache.clear();
    expect(cache.get(2)).toBeUndefined();
  });

  it('keeps nothing with a lifetime of 0', async () => {
    const cache = new HotReadCache<string, number>({ lifetimeMilliseconds: 0, entriesMaximum: 10 });
    let reads = 0;
    const load = async () => (reads += 1);
    await cache.read('key', load);
    await cache.read('key', load);
    expect(reads).toBe(2);
  });
});
