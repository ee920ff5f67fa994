/**
 * The per-process caches' one bound: entries kept until the sizes of what they hold (characters,
 * postings, as each cache counts them) pass a maximum, the least recently used dropped first. An
 * entry larger than the whole bound is never kept, and a bound of 0 keeps nothing. What makes an
 * entry safe to use (a hash, a version, an immutable row) is each cache's own affair.
 *
 * The recency order is lru-cache's. It was a Map re-inserting each entry at every hit, which a
 * search makes a hundred times (its posting lists, its candidates' rows and their analysed texts):
 * in a profile of the full-text query benchmark that cost a sixth of the proximity re-rank.
 */
import { LRUCache } from 'lru-cache';

export class SizeBoundedCache<Key extends string | number, Value extends object | string> {
  private readonly entries: LRUCache<Key, Value> | undefined;

  constructor(sizeMaximum: number, sizeOf: (value: Value) => number) {
    // lru-cache counts whole, positive sizes: an empty value still takes one unit.
    const sizeCalculation = (value: Value): number => Math.max(1, Math.ceil(sizeOf(value)));
    this.entries = sizeMaximum >= 1 ? new LRUCache({ maxSize: Math.floor(sizeMaximum), sizeCalculation }) : undefined;
  }

  /** The value kept for `key`, which becomes the most recently used. */
  get(key: Key): Value | undefined {
    return this.entries?.get(key);
  }

  /** Keeps `value` for `key` (replacing what was kept; a value larger than the bound is refused and the key forgotten), then drops the least recently used entries past the bound. */
  set(key: Key, value: Value): void {
    this.entries?.set(key, value);
  }

  delete(key: Key): void {
    this.entries?.delete(key);
  }

  /** The sizes of the values kept now, added up. */
  get heldSize(): number {
    return this.entries?.calculatedSize ?? 0;
  }
}
