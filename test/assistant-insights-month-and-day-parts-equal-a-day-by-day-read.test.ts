/**
 * Proves on both dialects that an insights range read as whole months from the monthly roll-up
 * and the days around them from the daily one (assistant-insights-repository.ts) gives exactly
 * what a day-by-day read of the same increments gives: distinct learners, and each kind's items
 * summed, filtered by their minimum, ordered (most used first, ties by item) and cut at the limit,
 * over ranges that are single days, whole months, months with ragged edges, a leap-free February,
 * and a year's turn. The increments are written as the server writes them (addInsightsItems, both
 * tiers at once), drawn from a seeded generator.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  addInsightsItems,
  countDistinctItems,
  sumItems,
  type InsightsItemIncrement,
  type InsightsItemTotal,
} from '../src/store/assistant-insights-repository.js';
import type { InsightsItemKind } from '../src/store/schema.js';
import { openStore, type Store } from '../src/store/store.js';
import { possiblyUnset } from './support/possibly-unset.js';
import { createTestDatabase, TEST_DIALECTS, type TestDatabase } from './support/test-databases.js';

const ASSISTANT_ID = 4_242;
const FIRST_DAY = '2025-11-20';
const DAYS = 115;
const KINDS: readonly InsightsItemKind[] = ['learner', 'topic', 'source'];
const RANGES: readonly [string, string][] = [
  ['2025-11-20', '2025-11-20'],
  ['2025-12-01', '2025-12-31'],
  ['2025-11-20', '2026-03-14'],
  ['2025-11-25', '2026-02-03'],
  ['2025-12-31', '2026-01-01'],
  ['2026-02-01', '2026-02-28'],
  ['2026-01-15', '2026-02-14'],
  ['2025-12-01', '2026-02-28'],
];

/** A small deterministic generator (mulberry32), so each run draws the same increments. */
function randomNumbers(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let mixed = Math.imul(state ^ (state >>> 15), 1 | state);
    mixed = (mixed + Math.imul(mixed ^ (mixed >>> 7), 61 | mixed)) ^ mixed;
    return ((mixed ^ (mixed >>> 14)) >>> 0) / 4_294_967_296;
  };
}

function dayAt(index: number): string {
  return new Date(Date.parse(`${FIRST_DAY}T00:00:00Z`) + index * 86_400_000).toISOString().slice(0, 10);
}

/** What was written, day by day: the oracle. */
const written = new Map<string, (InsightsItemIncrement & { day: string })[]>();

function dayByDay(range: [string, string], kind: InsightsItemKind): Map<string, InsightsItemTotal> {
  const totals = new Map<string, InsightsItemTotal>();
  for (const [day, items] of written) {
    if (day < range[0] || day > range[1]) continue;
    for (const item of items.filter((written) => written.kind === kind)) {
      const total = totals.get(item.item) ?? { item: item.item, label: item.label, uses: 0 };
      total.uses += item.uses;
      totals.set(item.item, total);
    }
  }
  return totals;
}

function topOf(totals: Map<string, InsightsItemTotal>, options: { limit: number; usesMinimum: number }): InsightsItemTotal[] {
  return [...totals.values()]
    .filter((total) => total.uses >= options.usesMinimum)
    .sort((first, second) => second.uses - first.uses || (first.item < second.item ? -1 : 1))
    .slice(0, options.limit);
}

describe.each(TEST_DIALECTS)('insights month and day parts on %s', (dialect) => {
  let database: TestDatabase;
  let store: Store;

  beforeAll(async () => {
    database = await createTestDatabase(dialect);
    store = await openStore({ databaseUrl: database.databaseUrl, dataDirectory: database.dataDirectory, poolSize: 2 });
    const random = randomNumbers(32);
    written.clear();
    for (let index = 0; index < DAYS; index += 1) {
      const day = dayAt(index);
      const items: InsightsItemIncrement[] = [];
      for (const kind of KINDS) {
        const chosen = new Set(Array.from({ length: 1 + Math.floor(random() * 12) }, () => Math.floor(random() * random() * 40)));
        for (const number of chosen) {
          const item = `${kind.slice(0, 1)}${String(number).padStart(3, '0')}`;
          items.push({ kind, item, label: kind === 'source' ? `${item}.md` : null, uses: 1 + Math.floor(random() * 5) });
        }
      }
      await addInsightsItems(store.db, { assistantId: ASSISTANT_ID, day }, items);
      written.set(
        day,
        items.map((item) => ({ ...item, day })),
      );
    }
  });

  afterAll(async () => {
    await possiblyUnset(store)?.close();
    await possiblyUnset(database)?.drop();
  });

  it('counts the same distinct learners as a day-by-day read over every range', async () => {
    for (const range of RANGES) {
      const counted = await countDistinctItems(store.db, { assistantId: ASSISTANT_ID, from: range[0], to: range[1] }, 'learner');
      expect(counted, range.join('..')).toBe(dayByDay(range, 'learner').size);
    }
  });

  it('sums, filters, orders and cuts each kind as a day-by-day read does over every range', async () => {
    for (const range of RANGES)
      for (const kind of KINDS)
        for (const options of [
          { limit: 1_000, usesMinimum: 1 },
          { limit: 5, usesMinimum: 1 },
          { limit: 10, usesMinimum: 12 },
        ]) {
          const summed = await sumItems(store.db, { assistantId: ASSISTANT_ID, from: range[0], to: range[1] }, { kind, ...options });
          expect(summed, `${kind} ${range.join('..')} ${JSON.stringify(options)}`).toEqual(topOf(dayByDay(range, kind), options));
        }
  });
});
