/**
 * The daily usage roll-up (migration 0074). Each usage row adds itself to its day's counters in
 * the transaction that inserts it, with an INSERT … ON CONFLICT DO UPDATE that adds to what is
 * there: one atomic statement per key on both dialects, so concurrent writers never lose a count.
 * Reports read only this table, never usage_logs.
 */
import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { UsageScope } from './list-scopes.js';
import type { Database } from './schema.js';
import { usageReportParts, type UsageReportPart, type UsageRollUp } from './usage-report-parts.js';

/** One key's increment; numbers, as they are added. */
export interface DailyUsageIncrement {
  day: string;
  organization_id: number;
  user_id: number;
  assistant_id: number;
  model: string;
  requests: number;
  prompt_tokens: number;
  completion_tokens: number;
  cost_micro_usd: number;
}

/** The roll-ups' key columns: usage_daily's, and the coarser two it feeds (migration 0078). */
const KEY_COLUMNS = {
  usage_daily: ['day', 'organization_id', 'user_id', 'assistant_id', 'model'],
  usage_monthly: ['month', 'organization_id', 'user_id', 'assistant_id', 'model'],
  usage_daily_models: ['day', 'organization_id', 'model'],
} as const;

type RollUpRow = Record<string, string | number>;

/** Rows per upsert: 9 columns each stays far under SQLite's parameter limit. */
const ROWS_PER_UPSERT = 500;

/** The increments summed per key of a roll-up, in key order. */
function summedBy(increments: readonly DailyUsageIncrement[], rollUp: UsageRollUp): RollUpRow[] {
  const columns = KEY_COLUMNS[rollUp];
  const rows = new Map<string, RollUpRow>();
  for (const increment of increments) {
    const keyed: RollUpRow = rollUp === 'usage_monthly' ? { ...increment, month: increment.day.slice(0, 7) } : { ...increment };
    const key = columns.map((column) => keyed[column]).join('|');
    const row = rows.get(key) ?? { ...Object.fromEntries(columns.map((column) => [column, keyed[column]!])), ...NO_SUMS };
    for (const counter of COUNTERS) row[counter] = Number(row[counter]) + increment[counter];
    rows.set(key, row);
  }
  return [...rows.entries()].sort(([first], [second]) => first.localeCompare(second)).map(([, row]) => row);
}

const COUNTERS = ['requests', 'prompt_tokens', 'completion_tokens', 'cost_micro_usd'] as const;
const NO_SUMS = { requests: 0, prompt_tokens: 0, completion_tokens: 0, cost_micro_usd: 0 };

/** One INSERT … ON CONFLICT DO UPDATE that adds each row's counters to its key's: atomic per key on both dialects. */
async function addToRollUp(db: Kysely<Database>, rollUp: UsageRollUp, rows: readonly RollUpRow[]): Promise<void> {
  // The three roll-ups share their counters; only their key columns differ, so one statement serves them all.
  const table = rollUp as 'usage_daily';
  await db
    .insertInto(table)
    .values(rows as never)
    .onConflict((conflict) =>
      conflict.columns([...KEY_COLUMNS[rollUp]] as never).doUpdateSet((update) => ({
        requests: sql`${sql.ref(`${rollUp}.requests`)} + ${update.ref('excluded.requests')}`,
        prompt_tokens: sql`${sql.ref(`${rollUp}.prompt_tokens`)} + ${update.ref('excluded.prompt_tokens')}`,
        completion_tokens: sql`${sql.ref(`${rollUp}.completion_tokens`)} + ${update.ref('excluded.completion_tokens')}`,
        cost_micro_usd: sql`${sql.ref(`${rollUp}.cost_micro_usd`)} + ${update.ref('excluded.cost_micro_usd')}`,
      })),
    )
    .execute();
}

/**
 * Adds the increments to the daily roll-up and to the two coarser ones it feeds, in the caller's
 * transaction. Keys are taken in one order (roll-up, then key), so two writers never wait on each
 * other in a cycle; every add is atomic, so no count is lost however many processes write.
 */
export async function addDailyUsage(db: Kysely<Database>, increments: readonly DailyUsageIncrement[]): Promise<void> {
  for (const rollUp of ['usage_daily', 'usage_monthly', 'usage_daily_models'] as const) {
    const rows = summedBy(increments, rollUp);
    for (let start = 0; start < rows.length; start += ROWS_PER_UPSERT)
      await addToRollUp(db, rollUp, rows.slice(start, start + ROWS_PER_UPSERT));
  }
}

export function keyOf(increment: Pick<DailyUsageIncrement, 'day' | 'organization_id' | 'user_id' | 'assistant_id' | 'model'>): string {
  return `${increment.day}|${increment.organization_id}|${increment.user_id}|${increment.assistant_id}|${increment.model}`;
}

export type UsageGrouping = 'day' | 'user' | 'assistant' | 'model';

export interface UsageReportQuery {
  scope: UsageScope;
  /** Inclusive UTC days, YYYY-MM-DD. */
  from: string;
  to: string;
  groupBy: UsageGrouping;
  assistantId?: number | undefined;
  userId?: number | undefined;
  /** Groups returned at most; one more is read to tell that some were left out. */
  groupsMaximum: number;
}

export interface UsageSums {
  requests: number;
  prompt_tokens: number;
  completion_tokens: number;
  cost_micro_usd: number;
}

export interface UsageGroupRow extends UsageSums {
  key: string;
}

const GROUP_COLUMNS = { day: 'day', user: 'user_id', assistant: 'assistant_id', model: 'model' } as const;

/**
 * A caller's own share: their requests, and every request to the assistants they own, listed as
 * ids. With a subquery in the OR, PostgreSQL could use neither index and read the whole roll-up
 * (measured 200 ms a year at ten million usage rows); with a list it combines the two indexes.
 */
function ownCondition(userId: number, ownedAssistantIds: readonly number[]): RawBuilder<unknown> {
  if (ownedAssistantIds.length === 0) return sql`user_id = ${userId}`;
  return sql`(user_id = ${userId} OR assistant_id IN (${sql.join(ownedAssistantIds.map((id) => sql`${id}`))}))`;
}

async function scopeCondition(db: Kysely<Database>, scope: UsageScope): Promise<RawBuilder<unknown>> {
  switch (scope.kind) {
    case 'all':
      return sql`1 = 1`;
    case 'organization':
      return sql`organization_id = ${scope.organizationId}`;
    case 'own': {
      const owned = await db.selectFrom('assistants').select('id').where('owner_id', '=', scope.userId).execute();
      return ownCondition(
        scope.userId,
        owned.map((assistant) => assistant.id),
      );
    }
  }
}

function partsOf(query: UsageReportQuery, byDay: boolean): UsageReportPart[] {
  const needsPeople =
    query.scope.kind === 'own' ||
    query.assistantId !== undefined ||
    query.userId !== undefined ||
    query.groupBy === 'user' ||
    query.groupBy === 'assistant';
  return usageReportParts({ from: query.from, to: query.to, byDay, needsPeople });
}

const SUMS = sql`sum(requests) AS requests, sum(prompt_tokens) AS prompt_tokens, sum(completion_tokens) AS completion_tokens, sum(cost_micro_usd) AS cost_micro_usd`;

/** One part's sums, grouped by `key` when it has one: the roll-up's rows in the part's period, the scope and the filters. */
interface PartSelect {
  query: UsageReportQuery;
  part: UsageReportPart;
  scope: RawBuilder<unknown>;
  key: RawBuilder<unknown> | undefined;
}

function partSelect({ query, part, scope, key }: PartSelect): RawBuilder<unknown> {
  const period = sql.ref(part.rollUp === 'usage_monthly' ? 'month' : 'day');
  const conditions = [sql`${period} >= ${part.from}`, sql`${period} <= ${part.to}`, scope];
  if (query.assistantId !== undefined) conditions.push(sql`assistant_id = ${query.assistantId}`);
  if (query.userId !== undefined) conditions.push(sql`user_id = ${query.userId}`);
  const where = sql.join(conditions, sql` AND `);
  return key === undefined
    ? sql`SELECT ${SUMS} FROM ${sql.table(part.rollUp)} WHERE ${where}`
    : sql`SELECT ${key} AS group_key, ${SUMS} FROM ${sql.table(part.rollUp)} WHERE ${where} GROUP BY ${key}`;
}

async function unionOf(
  db: Kysely<Database>,
  query: UsageReportQuery,
  key: RawBuilder<unknown> | undefined,
  byDay: boolean,
): Promise<RawBuilder<unknown>> {
  const scope = await scopeCondition(db, query.scope);
  return sql.join(
    partsOf(query, byDay).map((part) => partSelect({ query, part, scope, key })),
    sql` UNION ALL `,
  );
}

/** PostgreSQL sums bigints as numeric, which its driver reads as text; an empty sum is null. */
function sumsOf(row: { [Key in keyof UsageSums]: number | string | null }): UsageSums {
  return {
    requests: Number(row.requests ?? 0),
    prompt_tokens: Number(row.prompt_tokens ?? 0),
    completion_tokens: Number(row.completion_tokens ?? 0),
    cost_micro_usd: Number(row.cost_micro_usd ?? 0),
  };
}

type SumsRow = { [Key in keyof UsageSums]: number | string | null };

/** The groups of the range, days in order and the rest by tokens, most first; at most groupsMaximum + 1. */
export async function readUsageGroups(db: Kysely<Database>, query: UsageReportQuery): Promise<UsageGroupRow[]> {
  const column = sql.ref(GROUP_COLUMNS[query.groupBy]);
  // A person or assistant id grouped as `id + 0`: SQLite would otherwise walk the whole index on
  // that id to group without sorting, skipping through every month, instead of reading only the
  // organization's months from its covering index (measured ten times slower for a year).
  const key = query.groupBy === 'user' || query.groupBy === 'assistant' ? sql`${column} + 0` : column;
  const order = query.groupBy === 'day' ? sql`group_key` : sql`sum(prompt_tokens) + sum(completion_tokens) DESC, group_key`;
  const result = await sql<SumsRow & { group_key: string | number }>`
    SELECT group_key, ${SUMS} FROM (${await unionOf(db, query, key, query.groupBy === 'day')}) AS parts
    GROUP BY group_key ORDER BY ${order} LIMIT ${query.groupsMaximum + 1}
  `.execute(db);
  return result.rows.map((row) => ({ key: String(row.group_key), ...sumsOf(row) }));
}

export async function readUsageTotals(db: Kysely<Database>, query: UsageReportQuery): Promise<UsageSums> {
  const result = await sql<SumsRow>`SELECT ${SUMS} FROM (${await unionOf(db, query, undefined, false)}) AS parts`.execute(db);
  return sumsOf(result.rows[0] ?? { requests: 0, prompt_tokens: 0, completion_tokens: 0, cost_micro_usd: 0 });
}

/** The names of the users or assistants a report groups by, for its labels. */
export async function readUsageLabels(
  db: Kysely<Database>,
  table: 'users' | 'assistants',
  ids: readonly number[],
): Promise<Map<number, string>> {
  if (ids.length === 0) return new Map();
  const rows = await db
    .selectFrom(table)
    .select(['id', 'name'])
    .where('id', 'in', [...ids])
    .execute();
  return new Map(rows.map((row) => [row.id, row.name]));
}

/** The emails of the people a report groups by, for the command line's labels (an email is what an admin scripts with). */
export async function readUsageEmails(db: Kysely<Database>, ids: readonly number[]): Promise<Map<number, string>> {
  if (ids.length === 0) return new Map();
  const rows = await db
    .selectFrom('users')
    .select(['id', 'email'])
    .where('id', 'in', [...ids])
    .execute();
  return new Map(rows.map((row) => [row.id, row.email]));
}
