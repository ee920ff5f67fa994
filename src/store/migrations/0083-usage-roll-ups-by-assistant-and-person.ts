/**
 * Migration 0083, three narrower usage roll-ups (docs/usage.md, "The roll-ups"), kept in the same
 * transaction as usage_daily and filled once from it:
 * - `usage_daily_assistants` and `usage_monthly_assistants`: per organization, assistant and
 *   model, by day and by month, for reports by assistant or narrowed to one, and a creator's
 *   share of their own assistants;
 * - `usage_monthly_people` and `usage_weekly_people`: per organization and person, by month and
 *   by week (Monday to Sunday, UTC; `week` is its Monday), for reports by person.
 * An organization's year by person then sums one row per person and month, not one per person,
 * assistant and model (three times fewer at a university's scale), the days around its whole
 * months mostly one per person and week, and by assistant one row per assistant and month.
 */
import { sql, type Kysely, type Migration, type RawBuilder } from 'kysely';
import type { Dialect } from '../dialect.js';

const COUNTERS = ['requests', 'prompt_tokens', 'completion_tokens', 'cost_micro_usd'] as const;
const SUMMED_COUNTERS = sql.raw(COUNTERS.map((counter) => `sum(${counter})`).join(', '));

export interface RollUp {
  table: string;
  period: 'day' | 'week' | 'month' | 'quarter';
  keys: readonly string[];
  /** Where it is filled from: usage_daily for the daily ones, the monthly roll-up keeping the same keys for the coarser ones. */
  source: 'usage_daily' | 'usage_monthly' | 'usage_monthly_people';
  /** An index for reports narrowed to one person or assistant across organizations' rows. */
  narrowedBy: 'user_id' | 'assistant_id';
}

const ROLL_UPS: readonly RollUp[] = [
  { table: 'usage_daily_assistants', period: 'day', keys: ['assistant_id', 'model'], source: 'usage_daily', narrowedBy: 'assistant_id' },
  {
    table: 'usage_monthly_assistants',
    period: 'month',
    keys: ['assistant_id', 'model'],
    source: 'usage_monthly',
    narrowedBy: 'assistant_id',
  },
  { table: 'usage_monthly_people', period: 'month', keys: ['user_id'], source: 'usage_monthly', narrowedBy: 'user_id' },
  { table: 'usage_weekly_people', period: 'week', keys: ['user_id'], source: 'usage_daily', narrowedBy: 'user_id' },
];

/** The Monday of a usage_daily row's day, as text: each dialect has its own date functions. */
function mondayOf(dialect: Dialect): RawBuilder<unknown> {
  return dialect === 'postgres'
    ? sql`to_char(date_trunc('week', CAST(day AS date)), 'YYYY-MM-DD')`
    : sql`date(day, '-6 days', 'weekday 1')`;
}

/** The source's period as the roll-up's: a day's Monday for a week; the same column otherwise. */
function periodFromSource(rollUp: RollUp, dialect: Dialect): RawBuilder<unknown> {
  return rollUp.period === 'week' ? mondayOf(dialect) : sql.ref(rollUp.period);
}

/** Creates a roll-up with its key, its two indexes, and fills it from its source (`period` turns the source's period into its own). */
export async function createRollUp(db: Kysely<unknown>, rollUp: RollUp, period: RawBuilder<unknown>): Promise<void> {
  let table = db.schema
    .createTable(rollUp.table)
    .addColumn(rollUp.period, 'text', (column) => column.notNull())
    .addColumn('organization_id', 'integer', (column) => column.notNull());
  for (const key of rollUp.keys) table = table.addColumn(key, key === 'model' ? 'text' : 'integer', (column) => column.notNull());
  for (const counter of COUNTERS) table = table.addColumn(counter, 'bigint', (column) => column.notNull());
  const primaryKey = ['organization_id', rollUp.period, ...rollUp.keys];
  // The builder types only the columns it was given by name; these were added in loops above.
  await table.addPrimaryKeyConstraint(`${rollUp.table}_key`, primaryKey as never).execute();
  // Covering: an organization's report over a range reads this index alone.
  await db.schema
    .createIndex(`${rollUp.table}_organization_index`)
    .on(rollUp.table)
    .columns([...primaryKey, ...COUNTERS])
    .execute();
  await db.schema
    .createIndex(`${rollUp.table}_${rollUp.narrowedBy === 'user_id' ? 'user' : 'assistant'}_index`)
    .on(rollUp.table)
    .columns([rollUp.narrowedBy, rollUp.period])
    .execute();
  const keys = sql.raw(['organization_id', ...rollUp.keys].join(', '));
  await sql`
    INSERT INTO ${sql.table(rollUp.table)} (${sql.ref(rollUp.period)}, ${keys}, ${sql.raw(COUNTERS.join(', '))})
    SELECT ${period}, ${keys}, ${SUMMED_COUNTERS} FROM ${sql.table(rollUp.source)} GROUP BY ${period}, ${keys}
  `.execute(db);
}

export function usageRollUpsByAssistantAndPersonMigration(dialect: Dialect): Migration {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      for (const rollUp of ROLL_UPS) await createRollUp(db, rollUp, periodFromSource(rollUp, dialect));
    },
  };
}
