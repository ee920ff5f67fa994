// Proves the file-text cache answers a repeated read from memory, keys entries by hash and
// characters asked for, and keeps at most FILE_TEXT_CACHE_CHARACTERS characters, dropping the
// least recently used first (a limit of 0 keeps nothing).
import { describe, expect, it } from 'vitest';
import { FileTextCache } from './file-text-cache.js';

function counted(text: string): { load: () => Promise<{ text: string; truncated: boolean }>; loads: () => number } {
  let loads = 0;
  return {
    load: async () => {
      loads += 1;
      return { text, truncated: false };
    },
    loads: () => loads,
  };
}

describe('FileTextCache', () => {
  it('loads a file once per hash and characters asked for', async () => {
    const cache = new FileTextCache(100);
    const source = counted('hello');
    expect((await cache.read('aa', 10, source.load))?.text).toBe('hello');
    expect((await cache.read('aa', 10, source.load))?.text).toBe('hello');
    expect(source.loads()).toBe(1);
    await cache.read('aa', 20, source.load);
    await cache.read('bb', 10, source.load);
    expect(source.loads()).toBe(3);
  });

  it('drops the least recently used past its characters, and keeps nothing with a limit of 0', async () => {
    const cache = new FileTextCache(10);
    const first = counted('12345');
    const second = counted('67890');
    const third = counted('abcde');
    await cache.read('first', 5, first.load);
    await cache.read('second', 5, second.load);
    await cache.read('first', 5, first.load); // now the most recently used
    await cache.read('third', 5, third.load); // 15 characters: `second` goes
    await cache.read('first', 5, first.load);
    await cache.read('second', 5, second.load);
    expect([first.loads(), second.loads(), third.loads()]).toEqual([1, 2, 1]);

    const none = new FileTextCache(0);
    const source = counted('x');
    await none.read('h', 1, source.load);
    await none.read('h', 1, source.load);
    expect(source.loads()).toBe(2);
  });

  it('does not keep a missing file', async () => {
    const cache = new FileTextCache(100);
    let loads = 0;
    const missing = async (): Promise<undefined> => {
      loads += 1;
      return undefined;
    };
    expect(await cache.read('gone', 5, missing)).toBeUndefined();
    expect(await cache.read('gone', 5, missing)).toBeUndefined();
    expect(loads).toBe(2);
  });
});
