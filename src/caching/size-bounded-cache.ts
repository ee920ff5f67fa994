/**
 * The per-process caches' one bound: entries kept until the sizes of what they hold (characters,
 * postings, as each cache counts them) pass a maximum, the least recently used dropped first. An
 * entry larger than the whole bound is never kept, and a bound of 0 keeps nothing. What makes an
 * entry safe to use (a hash, a version, an immutable row) is each cache's own affair.
 */
export class SizeBoundedCache<Key, Value> {
  // A Map iterates in insertion order: re-inserting on every hit keeps the least recently used first.
  private readonly entries = new Map<Key, Value>();
  private size = 0;

  constructor(
    private readonly sizeMaximum: number,
    private readonly sizeOf: (value: Value) => number,
  ) {}

  /** The value kept for `key`, which becomes the most recently used. */
  get(key: Key): Value | undefined {
    const value = this.entries.get(key);
    if (value === undefined) return undefined;
    this.entries.delete(key);
    this.entries.set(key, value);
    return value;
  }

  /** Keeps `value` for `key` (replacing what was kept), then drops the least recently used entries past the bound. */
  set(key: Key, value: Value): void {
    this.delete(key);
    const size = this.sizeOf(value);
    if (size > this.sizeMaximum) return;
    this.entries.set(key, value);
    this.size += size;
    for (const [oldestKey, oldest] of this.entries) {
      if (this.size <= this.sizeMaximum) break;
      this.entries.delete(oldestKey);
      this.size -= this.sizeOf(oldest);
    }
  }

  delete(key: Key): void {
    const value = this.entries.get(key);
    if (value === undefined) return;
    this.entries.delete(key);
    this.size -= this.sizeOf(value);
  }

  /** The sizes of the values kept now, added up. */
  get heldSize(): number {
    return this.size;
  }
}
