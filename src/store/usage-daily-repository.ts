/**
 * The daily usage roll-up (migration 0074). Each usage row adds itself to its day's counters in
 * the transaction that inserts it, with an INSERT … ON CONFLICT DO UPDATE that adds to what is
 * there: one atomic statement per key on both dialects, so concurrent writers never lose a count.
 * Reports read only this table, never usage_logs.
 */
import { sql, type Expression, type ExpressionBuilder, type Kysely, type SqlBool } from 'kysely';
import type { UsageScope } from './list-scopes.js';
import type { Database } from './schema.js';

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

/** Adds each increment to its key's counters. Keys go in one order, so two writers never wait on each other in a cycle. */
export async function addDailyUsage(db: Kysely<Database>, increments: readonly DailyUsageIncrement[]): Promise<void> {
  const ordered = [...increments].sort((first, second) => keyOf(first).localeCompare(keyOf(second)));
  for (const increment of ordered)
    await db
      .insertInto('usage_daily')
      .values(increment)
      .onConflict((conflict) =>
        conflict.columns(['day', 'organization_id', 'user_id', 'assistant_id', 'model']).doUpdateSet((update) => ({
          requests: sql`usage_daily.requests + ${update.ref('excluded.requests')}`,
          prompt_tokens: sql`usage_daily.prompt_tokens + ${update.ref('excluded.prompt_tokens')}`,
          completion_tokens: sql`usage_daily.completion_tokens + ${update.ref('excluded.completion_tokens')}`,
          cost_micro_usd: sql`usage_daily.cost_micro_usd + ${update.ref('excluded.cost_micro_usd')}`,
        })),
      )
      .execute();
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

function scopeCondition(scope: UsageScope, builder: ExpressionBuilder<Database, 'usage_daily'>): Expression<SqlBool> {
  switch (scope.kind) {
    case 'all':
      return sql<SqlBool>`1 = 1`;
    case 'organization':
      return builder('usage_daily.organization_id', '=', scope.organizationId);
    case 'own':
      return builder.or([
        builder('usage_daily.user_id', '=', scope.userId),
        builder(
          'usage_daily.assistant_id',
          'in',
          builder.selectFrom('assistants').select('assistants.id').where('assistants.owner_id', '=', scope.userId),
        ),
      ]);
  }
}

function filtered(db: Kysely<Database>, query: UsageReportQuery) {
  let select = db
    .selectFrom('usage_daily')
    .where('usage_daily.day', '>=', query.from)
    .where('usage_daily.day', '<=', query.to)
    .where((builder) => scopeCondition(query.scope, builder));
  if (query.assistantId !== undefined) select = select.where('usage_daily.assistant_id', '=', query.assistantId);
  if (query.userId !== undefined) select = select.where('usage_daily.user_id', '=', query.userId);
  return select.select((builder) => [
    builder.fn.sum<number | string>('usage_daily.requests').as('requests'),
    builder.fn.sum<number | string>('usage_daily.prompt_tokens').as('prompt_tokens'),
    builder.fn.sum<number | string>('usage_daily.completion_tokens').as('completion_tokens'),
    builder.fn.sum<number | string>('usage_daily.cost_micro_usd').as('cost_micro_usd'),
  ]);
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

/** The groups of the range, days in order and the rest by tokens, most first; at most groupsMaximum + 1. */
export async function readUsageGroups(db: Kysely<Database>, query: UsageReportQuery): Promise<UsageGroupRow[]> {
  const column = `usage_daily.${GROUP_COLUMNS[query.groupBy]}` as const;
  let select = filtered(db, query)
    .select(sql<string | number>`${sql.ref(column)}`.as('key'))
    .groupBy(column);
  select =
    query.groupBy === 'day'
      ? select.orderBy(column)
      : select.orderBy(sql`sum(usage_daily.prompt_tokens) + sum(usage_daily.completion_tokens)`, 'desc').orderBy(column);
  const rows = await select.limit(query.groupsMaximum + 1).execute();
  return rows.map((row) => ({ key: String(row.key), ...sumsOf(row) }));
}

export async function readUsageTotals(db: Kysely<Database>, query: UsageReportQuery): Promise<UsageSums> {
  return sumsOf(await filtered(db, query).executeTakeFirstOrThrow());
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
