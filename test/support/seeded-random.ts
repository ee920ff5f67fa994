/**
 * A small seeded pseudo-random generator (mulberry32) for generated tests: the same seed always
 * yields the same sequence, so a failing generated request can be reproduced from the seed alone.
 */

export interface SeededRandom {
  /** A number in [0, 1). */
  next: () => number;
  /** An integer in [minimum, maximum], both included. */
  integer(minimum: number, maximum: number): number;
  /** True with the given probability. */
  chance(probability: number): boolean;
  pick<Item>(items: readonly Item[]): Item;
  /** Picks by weight: each entry is [weight, item]. */
  weighted<Item>(entries: ReadonlyArray<readonly [number, Item]>): Item;
}

export function seededRandom(seed: number): SeededRandom {
  let state = seed >>> 0;
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let mixed = state;
    mixed = Math.imul(mixed ^ (mixed >>> 15), mixed | 1);
    mixed ^= mixed + Math.imul(mixed ^ (mixed >>> 7), mixed | 61);
    return ((mixed ^ (mixed >>> 14)) >>> 0) / 4_294_967_296;
  };
  const integer = (minimum: number, maximum: number): number => minimum + Math.floor(next() * (maximum - minimum + 1));
  return {
    next,
    integer,
    chance: (probability) => next() < probability,
    pick<Item>(items: readonly Item[]): Item {
      if (items.length === 0) throw new Error('cannot pick from an empty list');
      return items[integer(0, items.length - 1)]!;
    },
    weighted<Item>(entries: ReadonlyArray<readonly [number, Item]>): Item {
      const total = entries.reduce((sum, [weight]) => sum + weight, 0);
      let point = next() * total;
      for (const [weight, item] of entries) {
        point -= weight;
        if (point < 0) return item;
      }
      return entries.at(-1)![1];
    },
  };
}
