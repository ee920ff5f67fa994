/**
 * The text of stored files as the single-file tool reads it, kept per process and bounded by the
 * characters it holds. An assistant with a file reads it on every request, and opening, checking
 * and decoding a blob cost a tenth of such a request's CPU. Entries are keyed by the file's
 * SHA-256 (recorded when it was stored) and the characters asked for, so an entry can never be
 * stale: a file whose bytes change has another hash, and a deleted file is refused by its row
 * before the cache is asked. Past `charactersMaximum` the least recently used entries are dropped.
 */
import { SizeBoundedCache } from '../caching/size-bounded-cache.js';
import type { FileText } from '../pipeline/plugin-contract/ports.js';

export class FileTextCache {
  private readonly entries: SizeBoundedCache<string, FileText>;

  constructor(charactersMaximum: number) {
    this.entries = new SizeBoundedCache(charactersMaximum, (text) => text.text.length);
  }

  async read(sha256: string, charactersMaximum: number, load: () => Promise<FileText | undefined>): Promise<FileText | undefined> {
    const key = `${sha256}:${charactersMaximum}`;
    const cached = this.entries.get(key);
    if (cached !== undefined) return cached;
    const text = await load();
    if (text !== undefined) this.entries.set(key, text);
    return text;
  }
}
