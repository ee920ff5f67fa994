/**
 * A per-process cache of a hot store read (an API key's identity, an assistant owner's identity,
 * an organization's provider settings), for at most `lifetimeMilliseconds`. Several processes may
 * share one PostgreSQL and none hears of another's writes, so nothing here is ever older than the
 * lifetime: a change made through another process (a key revoked, a user disabled) takes effect
 * here within that window. Writes made through this process forget the entries they touch at
 * once. At most `entriesMaximum` entries are kept; past that the oldest is forgotten. A lifetime
 * of 0 turns the cache off: every read goes to the store. See docs/deployment.md, "Caches".
 */

export interface HotReadCacheOptions {
  lifetimeMilliseconds: number;
  entriesMaximum: number;
}

interface Entry<Value> {
  value: Value;
  expiresAt: number;
}

export class HotReadCache<Key, Value> {
  // A Map iterates in insertion order, so the first entry is always the oldest.
  private readonly entries = new Map<Key, Entry<Value>>();

  constructor(private readonly options: HotReadCacheOptions) {}

  /** The value stored for `key` unless it is older than the lifetime. */
  get(key: Key): Value | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    if (performance.now() < entry.expiresAt) return entry.value;
    this.entries.delete(key);
    return undefined;
  }

  set(key: Key, value: Value): void {
    if (this.options.lifetimeMilliseconds <= 0 || this.options.entriesMaximum <= 0) return;
    this.entries.delete(key);
    this.entries.set(key, { value, expiresAt: performance.now() + this.options.lifetimeMilliseconds });
    if (this.entries.size > this.options.entriesMaximum) {
      const oldest = this.entries.keys().next();
      if (oldest.done !== true) this.entries.delete(oldest.value);
    }
  }

  /** Reads through the cache: the stored value while it is fresh, else `load`'s, which is then kept. */
  async read(key: Key, load: () => Promise<Value>): Promise<Value> {
    const cached = this.get(key);
    if (cached !== undefined) return cached;
    const value = await load();
    this.set(key, value);
    return value;
  }

  forget(key: Key): void {
    this.entries.delete(key);
  }

  clear(): void {
    this.entries.clear();
  }
}
