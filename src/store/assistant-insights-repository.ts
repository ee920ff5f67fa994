/**
 * The insights roll-ups (migration 0081). Writers add to counters with INSERT … ON CONFLICT DO
 * UPDATE, one atomic statement per table, so concurrent answers never lose a count on either
 * dialect; readers take one assistant's rows over a range of days through the tables' keys and
 * never touch chat_messages.
 */
import { sql, type Kysely } from 'kysely';
import type { Database, InsightsItemKind } from './schema.js';

export const INSIGHTS_DAILY_COUNTERS = [
  'chats',
  'questions',
  'answers',
  'prompt_tokens',
  'completion_tokens',
  'cost_micro_usd',
  'tool_calls',
  'tool_failures',
  'retrieval_questions',
  'retrieval_empty',
  'feedback_up',
  'feedback_down',
] as const;

export type InsightsCounter = (typeof INSIGHTS_DAILY_COUNTERS)[number];

export type InsightsCounters = Record<InsightsCounter, number>;

export interface InsightsDayIncrement {
  assistantId: number;
  day: string;
  counters: Partial<InsightsCounters>;
}

export interface InsightsItemIncrement {
  kind: InsightsItemKind;
  item: string;
  label: string | null;
  uses: number;
}

export interface InsightsRange {
  assistantId: number;
  from: string;
  to: string;
}

/** Adds to one day's counters (a negative amount takes back a rating). */
export async function addInsightsDay(db: Kysely<Database>, increment: InsightsDayIncrement): Promise<void> {
  const counters = Object.entries(increment.counters).filter(([, amount]) => amount !== 0) as [InsightsCounter, number][];
  if (counters.length === 0) return;
  await db
    .insertInto('assistant_insights_daily')
    .values({ assistant_id: increment.assistantId, day: increment.day, ...Object.fromEntries(counters) })
    .onConflict((conflict) =>
      conflict
        .columns(['assistant_id', 'day'])
        .doUpdateSet(
          Object.fromEntries(
            counters.map(([counter]) => [
              counter,
              sql`${sql.ref(`assistant_insights_daily.${counter}`)} + ${sql.ref(`excluded.${counter}`)}`,
            ]),
          ),
        ),
    )
    .execute();
}

type ItemsTable = 'assistant_insights_items' | 'assistant_insights_monthly_items';

/** One upsert into a tier: its rows in key order, so two writers never wait on each other in a cycle. */
async function upsertItems(db: Kysely<Database>, table: ItemsTable, rows: readonly Record<string, unknown>[]): Promise<void> {
  const period = table === 'assistant_insights_items' ? 'day' : 'month';
  // Both tiers have the same columns but their period's; one statement serves both.
  await db
    .insertInto(table as 'assistant_insights_items')
    .values(rows as never)
    .onConflict((conflict) =>
      conflict.columns(['assistant_id', 'kind', period as 'day', 'item']).doUpdateSet({
        uses: sql`${sql.ref(`${table}.uses`)} + ${sql.ref('excluded.uses')}`,
        label: sql`coalesce(${sql.ref('excluded.label')}, ${sql.ref(`${table}.label`)})`,
      }),
    )
    .execute();
}

/** Adds to the day's items and to its month's, one statement each. */
export async function addInsightsItems(
  db: Kysely<Database>,
  day: { assistantId: number; day: string },
  items: readonly InsightsItemIncrement[],
): Promise<void> {
  if (items.length === 0) return;
  const sorted = [...items].sort((first, second) => `${first.kind}|${first.item}`.localeCompare(`${second.kind}|${second.item}`));
  const row = (item: InsightsItemIncrement) => ({
    assistant_id: day.assistantId,
    kind: item.kind,
    item: item.item,
    label: item.label,
    uses: item.uses,
  });
  await upsertItems(
    db,
    'assistant_insights_items',
    sorted.map((item) => ({ ...row(item), day: day.day })),
  );
  await upsertItems(
    db,
    'assistant_insights_monthly_items',
    sorted.map((item) => ({ ...row(item), month: day.day.slice(0, 7) })),
  );
}

export type InsightsDayRow = { day: string } & InsightsCounters;

/** The assistant's days with any counter in the range, oldest first. */
export async function listInsightsDays(db: Kysely<Database>, range: InsightsRange): Promise<InsightsDayRow[]> {
  const rows = await db
    .selectFrom('assistant_insights_daily')
    .selectAll()
    .where('assistant_id', '=', range.assistantId)
    .where('day', '>=', range.from)
    .where('day', '<=', range.to)
    .orderBy('day')
    .execute();
  return rows.map((row) => ({
    day: row.day,
    ...(Object.fromEntries(INSIGHTS_DAILY_COUNTERS.map((counter) => [counter, Number(row[counter])])) as InsightsCounters),
  }));
}

/** A range read as whole months from the monthly tier and the days around them from the daily tier. */
interface RangeParts {
  days: { from: string; to: string }[];
  months: { from: string; to: string } | undefined;
}

function monthStart(day: string): string {
  return `${day.slice(0, 7)}-01`;
}

function nextMonthStart(day: string): string {
  const date = new Date(`${monthStart(day)}T00:00:00Z`);
  date.setUTCMonth(date.getUTCMonth() + 1);
  return date.toISOString().slice(0, 10);
}

function dayBefore(day: string): string {
  return new Date(Date.parse(`${day}T00:00:00Z`) - 86_400_000).toISOString().slice(0, 10);
}

export function rangeParts(range: { from: string; to: string }): RangeParts {
  const firstWhole = range.from === monthStart(range.from) ? range.from : nextMonthStart(range.from);
  const endsMonth = dayBefore(nextMonthStart(range.to)) === range.to;
  // The first day after the last whole month in the range.
  const afterLastWhole = endsMonth ? nextMonthStart(range.to) : monthStart(range.to);
  if (firstWhole >= afterLastWhole) return { days: [{ from: range.from, to: range.to }], months: undefined };
  const days = [
    ...(range.from < firstWhole ? [{ from: range.from, to: dayBefore(firstWhole) }] : []),
    ...(afterLastWhole <= range.to ? [{ from: afterLastWhole, to: range.to }] : []),
  ];
  return { days, months: { from: firstWhole.slice(0, 7), to: dayBefore(afterLastWhole).slice(0, 7) } };
}

/** The kind's rows of each part of the range: the days around whole months, then the months. */
function rangeSelects(db: Kysely<Database>, range: InsightsRange, kind: InsightsItemKind) {
  const parts = rangeParts(range);
  const daily = (span: { from: string; to: string }) =>
    db
      .selectFrom('assistant_insights_items')
      .where('assistant_id', '=', range.assistantId)
      .where('kind', '=', kind)
      .where('day', '>=', span.from)
      .where('day', '<=', span.to);
  const monthly = (span: { from: string; to: string }) =>
    db
      .selectFrom('assistant_insights_monthly_items')
      .where('assistant_id', '=', range.assistantId)
      .where('kind', '=', kind)
      .where('month', '>=', span.from)
      .where('month', '<=', span.to);
  return { days: parts.days.map(daily), months: parts.months === undefined ? undefined : monthly(parts.months) };
}

/** The kind's rows of the range, from both tiers, as one subquery of (item, label, uses). */
function itemsInRange(db: Kysely<Database>, range: InsightsRange, kind: InsightsItemKind) {
  const selects = rangeSelects(db, range, kind);
  const [first, ...rest] = [
    ...selects.days.map((part) => part.select(['item', 'label', 'uses'])),
    ...(selects.months === undefined ? [] : [selects.months.select(['item', 'label', 'uses'])]),
  ];
  let unioned = first!;
  for (const part of rest) unioned = unioned.unionAll(part);
  return db.selectFrom(unioned.as('unioned'));
}

/**
 * How many different items of the kind came up in the range (distinct learners). The parts are
 * read as items only and joined with UNION, which drops repeats as it goes (a hash on PostgreSQL,
 * where count(DISTINCT …) sorted a year's 23,000 learner-months, and a narrower temporary index on
 * SQLite), then counted.
 */
export async function countDistinctItems(db: Kysely<Database>, range: InsightsRange, kind: InsightsItemKind): Promise<number> {
  const selects = rangeSelects(db, range, kind);
  const [first, ...rest] = [
    ...selects.days.map((part) => part.select('item')),
    ...(selects.months === undefined ? [] : [selects.months.select('item')]),
  ];
  // A range of one part has no UNION to drop repeats: its own DISTINCT does.
  let unioned = rest.length === 0 ? first!.distinct() : first!;
  for (const part of rest) unioned = unioned.union(part);
  const row = await db
    .selectFrom(unioned.as('distinct_items'))
    .select((expression) => expression.fn.countAll<number | string>().as('count'))
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

export interface InsightsItemTotal {
  item: string;
  label: string | null;
  uses: number;
}

/**
 * Each item's uses summed over the range, most used first (ties by item), at most `limit`, and
 * only items used at least `usesMinimum` times.
 */
export async function sumItems(
  db: Kysely<Database>,
  range: InsightsRange,
  options: { kind: InsightsItemKind; limit: number; usesMinimum: number },
): Promise<InsightsItemTotal[]> {
  const total = sql<number | string>`sum(${sql.ref('uses')})`;
  const rows = await itemsInRange(db, range, options.kind)
    .select(['item', (expression) => expression.fn.max('label').as('label'), total.as('uses')])
    .groupBy('item')
    .having(total, '>=', options.usesMinimum)
    .orderBy(total, 'desc')
    .orderBy('item')
    .limit(options.limit)
    .execute();
  return rows.map((row) => ({ item: row.item, label: row.label, uses: Number(row.uses) }));
}
