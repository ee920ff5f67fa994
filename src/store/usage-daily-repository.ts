/**
 * The usage roll-ups (migrations 0074, 0078, 0083 and 0086, docs/usage.md). Each usage row adds itself
 * to its day's, week's and month's counters in the transaction that inserts it, with an INSERT …
 * ON CONFLICT DO UPDATE that adds to what is there: one atomic statement per key on both
 * dialects, so concurrent writers never lose a count. Reports read only the roll-ups, never
 * usage_logs.
 */
import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { Dialect } from './dialect.js';
import type { UsageScope } from './list-scopes.js';
import type { Database } from './schema.js';
import {
  periodOf,
  quarterOf,
  usageReportParts,
  weekOf,
  type UsageColumn,
  type UsageReportPart,
  type UsageRollUp,
} from './usage-report-parts.js';

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

/** The roll-ups' key columns: usage_daily's, and the coarser ones it feeds (migrations 0078, 0083 and 0086). */
const KEY_COLUMNS = {
  usage_daily: ['day', 'organization_id', 'user_id', 'assistant_id', 'model'],
  usage_monthly: ['month', 'organization_id', 'user_id', 'assistant_id', 'model'],
  usage_daily_models: ['day', 'organization_id', 'model'],
  usage_daily_assistants: ['day', 'organization_id', 'assistant_id', 'model'],
  usage_monthly_assistants: ['month', 'organization_id', 'assistant_id', 'model'],
  usage_monthly_people: ['month', 'organization_id', 'user_id'],
  usage_weekly_people: ['week', 'organization_id', 'user_id'],
  usage_quarterly_people: ['quarter', 'organization_id', 'user_id'],
} as const satisfies Record<UsageRollUp, readonly string[]>;

/** Every roll-up, in the one order writers take their keys in. */
const ROLL_UPS = Object.keys(KEY_COLUMNS) as UsageRollUp[];

type RollUpRow = Record<string, string | number>;

/** Rows per upsert: 9 columns each stays far under SQLite's parameter limit. */
const ROWS_PER_UPSERT = 500;

/** The increments summed per key of a roll-up, in key order. */
function summedBy(increments: readonly DailyUsageIncrement[], rollUp: UsageRollUp): RollUpRow[] {
  const columns = KEY_COLUMNS[rollUp];
  const rows = new Map<string, RollUpRow>();
  for (const increment of increments) {
    const keyed: RollUpRow = {
      ...increment,
      month: increment.day.slice(0, 7),
      week: weekOf(increment.day),
      quarter: quarterOf(increment.day),
    };
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
  // The roll-ups share their counters; only their key columns differ, so one statement serves them all.
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
 * Adds the increments to the daily roll-up and to the coarser ones it feeds, in the caller's
 * transaction. Keys are taken in one order (roll-up, then key), so two writers never wait on each
 * other in a cycle; every add is atomic, so no count is lost however many processes write.
 */
export async function addDailyUsage(db: Kysely<Database>, increments: readonly DailyUsageIncrement[]): Promise<void> {
  for (const rollUp of ROLL_UPS) {
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
  /** Which store answers: each sums its counters its own fastest exact way. */
  dialect: Dialect;
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

/** One branch of a report's scope: a condition on the roll-ups' rows, and the columns it reads. */
interface ScopeBranch {
  condition: RawBuilder<unknown>;
  columns: readonly UsageColumn[];
}

function idList(ids: readonly number[]): RawBuilder<unknown> {
  return sql.join(ids.map((id) => sql`${id}`));
}

/**
 * A caller's own share is their own requests and every request to the assistants they own. It is
 * read as two branches that never overlap, the owned assistants' requests (from the roll-ups by
 * assistant) and the caller's requests to other assistants, rather than one OR, which no roll-up
 * smaller than usage_daily could answer.
 */
async function scopeBranches(db: Kysely<Database>, scope: UsageScope): Promise<ScopeBranch[]> {
  switch (scope.kind) {
    case 'all':
      return [{ condition: sql`1 = 1`, columns: [] }];
    case 'organization':
      return [{ condition: sql`organization_id = ${scope.organizationId}`, columns: [] }];
    case 'own': {
      const owned = (await db.selectFrom('assistants').select('id').where('owner_id', '=', scope.userId).execute()).map(
        (assistant) => assistant.id,
      );
      if (owned.length === 0) return [{ condition: sql`user_id = ${scope.userId}`, columns: ['user_id'] }];
      return [
        { condition: sql`assistant_id IN (${idList(owned)})`, columns: ['assistant_id'] },
        { condition: sql`user_id = ${scope.userId} AND assistant_id NOT IN (${idList(owned)})`, columns: ['user_id', 'assistant_id'] },
      ];
    }
  }
}

/** The columns a report narrows to with its filters. */
function filterColumns(query: UsageReportQuery): UsageColumn[] {
  const columns: UsageColumn[] = [];
  if (query.assistantId !== undefined) columns.push('assistant_id');
  if (query.userId !== undefined) columns.push('user_id');
  return columns;
}

/**
 * PostgreSQL sums bigints as numeric, which is many times slower to add than a double and reaches
 * the driver as text: it sums doubles, which add whole numbers exactly up to 2^53 (nine thousand
 * million dollars in micro-dollars), far beyond any report's sums. SQLite sums its integers as
 * integers, faster than it casts them.
 */
const SUMS_OF_PARTS = sql`sum(requests) AS requests, sum(prompt_tokens) AS prompt_tokens, sum(completion_tokens) AS completion_tokens, sum(cost_micro_usd) AS cost_micro_usd`;
const SUMS: Record<Dialect, RawBuilder<unknown>> = {
  postgres: sql`sum(CAST(requests AS DOUBLE PRECISION)) AS requests, sum(CAST(prompt_tokens AS DOUBLE PRECISION)) AS prompt_tokens, sum(CAST(completion_tokens AS DOUBLE PRECISION)) AS completion_tokens, sum(CAST(cost_micro_usd AS DOUBLE PRECISION)) AS cost_micro_usd`,
  sqlite: SUMS_OF_PARTS,
};

/** What one SELECT over one roll-up needs: the part it reads, the branch's condition, and the report's filters. */
interface PartSelect {
  query: UsageReportQuery;
  part: UsageReportPart;
  condition: RawBuilder<unknown>;
}

function whereOf({ query, part, condition }: PartSelect): RawBuilder<unknown> {
  const period = sql.ref(periodOf(part.rollUp));
  const conditions = [sql`${period} >= ${part.from}`, sql`${period} <= ${part.to}`, condition];
  if (query.assistantId !== undefined) conditions.push(sql`assistant_id = ${query.assistantId}`);
  if (query.userId !== undefined) conditions.push(sql`user_id = ${query.userId}`);
  return sql.join(conditions, sql` AND `);
}

/** Every part each branch of the scope reads, for a report needing these columns beyond its scope's. */
async function selectsOf(
  db: Kysely<Database>,
  query: UsageReportQuery,
  options: { byDay: boolean; columns: readonly UsageColumn[] },
): Promise<PartSelect[]> {
  const selects: PartSelect[] = [];
  for (const branch of await scopeBranches(db, query.scope)) {
    const columns = new Set<UsageColumn>([...branch.columns, ...filterColumns(query), ...options.columns]);
    for (const part of usageReportParts({ from: query.from, to: query.to, byDay: options.byDay, columns }))
      selects.push({ query, part, condition: branch.condition });
  }
  return selects;
}

/**
 * Runs a report's statement. PostgreSQL would start parallel workers for its scans: on a few cores
 * serving many requests they cost more than they save (a mid-month report by person measured
 * 25–35 ms without them against 37–55 ms with them on two busy cores), so a report runs in a
 * transaction that turns them off for itself alone.
 */
async function executeReport<Row>(db: Kysely<Database>, dialect: Dialect, statement: RawBuilder<Row>): Promise<Row[]> {
  if (dialect !== 'postgres' || db.isTransaction) return (await statement.execute(db)).rows;
  return db.transaction().execute(async (transaction) => {
    await sql`SET LOCAL max_parallel_workers_per_gather = 0`.execute(transaction);
    return (await statement.execute(transaction)).rows;
  });
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

/**
 * The groups of the range, days in order and the rest by tokens, most first; at most
 * groupsMaximum + 1. A report that reads one roll-up groups it directly; one that reads several
 * groups each and then sums the parts' groups.
 */
export async function readUsageGroups(db: Kysely<Database>, query: UsageReportQuery): Promise<UsageGroupRow[]> {
  const groupColumn = GROUP_COLUMNS[query.groupBy];
  const column = sql.ref(groupColumn);
  // A person or assistant id grouped as `id + 0`: SQLite would otherwise walk the whole index on
  // that id to group without sorting, skipping through every month, instead of reading only the
  // organization's months from its covering index (measured ten times slower for a year).
  const key = query.groupBy === 'user' || query.groupBy === 'assistant' ? sql`${column} + 0` : column;
  // Over one roll-up, the order sums the counters as SUMS does, so PostgreSQL computes each sum once, as a double.
  const tokens = (oneRollUp: boolean) =>
    oneRollUp && query.dialect === 'postgres'
      ? sql`sum(CAST(prompt_tokens AS DOUBLE PRECISION)) + sum(CAST(completion_tokens AS DOUBLE PRECISION))`
      : sql`sum(prompt_tokens) + sum(completion_tokens)`;
  const order = (oneRollUp: boolean) => (query.groupBy === 'day' ? sql`group_key` : sql`${tokens(oneRollUp)} DESC, group_key`);
  const selects = await selectsOf(db, query, {
    byDay: query.groupBy === 'day',
    columns: groupColumn === 'day' ? [] : [groupColumn],
  });
  const limit = sql`LIMIT ${query.groupsMaximum + 1}`;
  const grouped = (select: PartSelect, sums: RawBuilder<unknown>) =>
    sql`SELECT ${key} AS group_key, ${sums} FROM ${sql.table(select.part.rollUp)} WHERE ${whereOf(select)} GROUP BY ${key}`;
  const statement =
    selects.length === 1
      ? sql<SumsRow & { group_key: string | number }>`${grouped(selects[0]!, SUMS[query.dialect])} ORDER BY ${order(true)} ${limit}`
      : sql<SumsRow & { group_key: string | number }>`
          SELECT group_key, ${SUMS_OF_PARTS} FROM (${sql.join(
            selects.map((select) => grouped(select, SUMS[query.dialect])),
            sql` UNION ALL `,
          )}) AS parts
          GROUP BY group_key ORDER BY ${order(false)} ${limit}`;
  const rows = await executeReport(db, query.dialect, statement);
  return rows.map((row) => ({ key: String(row.group_key), ...sumsOf(row) }));
}

/** The range's totals, from the smallest roll-ups that keep the scope's and filters' columns: not the grouping's. */
export async function readUsageTotals(db: Kysely<Database>, query: UsageReportQuery): Promise<UsageSums> {
  const selects = await selectsOf(db, query, { byDay: false, columns: [] });
  const parts = selects.map((select) => sql`SELECT ${SUMS[query.dialect]} FROM ${sql.table(select.part.rollUp)} WHERE ${whereOf(select)}`);
  const rows = await executeReport(
    db,
    query.dialect,
    sql<SumsRow>`SELECT ${SUMS_OF_PARTS} FROM (${sql.join(parts, sql` UNION ALL `)}) AS parts`,
  );
  return sumsOf(rows[0] ?? { requests: 0, prompt_tokens: 0, completion_tokens: 0, cost_micro_usd: 0 });
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
