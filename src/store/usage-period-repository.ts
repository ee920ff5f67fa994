/**
 * Usage of a period as `merino usage` prints it: requests, prompt and completion tokens from
 * usage_logs, grouped by day, user or assistant, optionally for one organization. `from` and
 * `to` are whole days (UTC), both included; created_at is an ISO timestamp, so comparing text
 * selects the days on both dialects.
 */
import { sql, type Kysely } from 'kysely';
import type { Database } from './schema.js';

export type UsageGrouping = 'day' | 'user' | 'assistant';

export interface UsagePeriodQuery {
  /** First day, YYYY-MM-DD. */
  from: string;
  /** Last day, YYYY-MM-DD, included. */
  to: string;
  groupBy: UsageGrouping;
  organizationId: number | undefined;
}

export interface UsagePeriodRow {
  /** The day, the user's email or the assistant's name (with its id). */
  group: string;
  requests: number;
  promptTokens: number;
  completionTokens: number;
}

function groupExpression(groupBy: UsageGrouping) {
  if (groupBy === 'day') return sql<string>`substr(usage_logs.created_at, 1, 10)`;
  if (groupBy === 'user') return sql<string>`coalesce(users.email, 'user ' || cast(usage_logs.user_id as text))`;
  return sql<string>`coalesce(assistants.name, 'assistant') || ' (' || cast(usage_logs.assistant_id as text) || ')'`;
}

export async function usageOfPeriod(db: Kysely<Database>, query: UsagePeriodQuery): Promise<UsagePeriodRow[]> {
  const group = groupExpression(query.groupBy);
  const rows = await db
    .selectFrom('usage_logs')
    .leftJoin('users', 'users.id', 'usage_logs.user_id')
    .leftJoin('assistants', 'assistants.id', 'usage_logs.assistant_id')
    .select([
      group.as('grouped'),
      sql<string>`count(*)`.as('requests'),
      sql<string>`coalesce(sum(usage_logs.prompt_tokens), 0)`.as('prompt_tokens'),
      sql<string>`coalesce(sum(usage_logs.completion_tokens), 0)`.as('completion_tokens'),
    ])
    .where('usage_logs.created_at', '>=', query.from)
    // The day after `to` starts with `to` followed by "T…", which sorts below `to` + "U".
    .where('usage_logs.created_at', '<', `${query.to}U`)
    .$if(query.organizationId !== undefined, (builder) => builder.where('usage_logs.organization_id', '=', query.organizationId!))
    .groupBy(group)
    .orderBy(group)
    .execute();
  return rows.map((row) => ({
    group: row.grouped,
    requests: Number(row.requests),
    promptTokens: Number(row.prompt_tokens),
    completionTokens: Number(row.completion_tokens),
  }));
}
