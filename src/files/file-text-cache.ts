/**
 * The text of stored files as the single-file tool reads it, kept per process and bounded by the
 * characters it holds. An assistant with a file reads it on every request, and opening, checking
 * and decoding a blob cost a tenth of such a request's CPU. Entries are keyed by the file's
 * SHA-256 (recorded when it was stored) and the characters asked for, so an entry can never be
 * stale: a file whose bytes change has another hash, and a deleted file is refused by its row
 * before the cache is asked. Past `charactersMaximum` the least recently used entries are dropped.
 */
import type { FileText } from '../pipeline/plugin-contract/ports.js';

export class FileTextCache {
  // A Map iterates in insertion order: re-inserting on every hit keeps the least recently used first.
  private readonly entries = new Map<string, FileText>();
  private characters = 0;

  constructor(private readonly charactersMaximum: number) {}

  async read(sha256: string, charactersMaximum: number, load: () => Promise<FileText | undefined>): Promise<FileText | undefined> {
    const key = `${sha256}:${charactersMaximum}`;
    const cached = this.entries.get(key);
    if (cached !== undefined) {
      this.entries.delete(key);
      this.entries.set(key, cached);
      return cached;
    }
    const text = await load();
    if (text !== undefined) this.keep(key, text);
    return text;
  }

  private keep(key: string, text: FileText): void {
    if (text.text.length > this.charactersMaximum || this.entries.has(key)) return;
    this.entries.set(key, text);
    this.characters += text.text.length;
    for (const [oldestKey, oldest] of this.entries) {
      if (this.characters <= this.charactersMaximum) break;
      this.entries.delete(oldestKey);
      this.characters -= oldest.text.length;
    }
  }
}
