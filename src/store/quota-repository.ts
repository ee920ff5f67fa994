/**
 * The store side of the token and cost quotas (docs/quotas.md): the per-organization lock that
 * admissions take turns under, one statement reading what a run's limits are measured against
 * (the daily roll-up and the reservations still held), the reservations themselves, and the
 * assistants' cost limits with the record of the alerts already raised.
 */
import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { Dialect } from './dialect.js';
import type { AssistantQuotasTable, Database } from './schema.js';

/** The first half of every advisory lock key Merino takes ('MR'), as in periodic-runs-repository.ts. */
const ADVISORY_LOCK_NAMESPACE = 0x4d52;

/**
 * Makes the rest of `transaction` the organization's only quota admission: PostgreSQL holds a
 * transaction advisory lock on the organization (any process waits for it, and it goes with the
 * transaction however that ends); SQLite runs one write transaction at a time, and the delete of
 * expired reservations that follows is this transaction's first write, so it takes the write
 * lock before anything is read.
 */
export async function lockQuotaAdmission(transaction: Kysely<Database>, dialect: Dialect, organizationId: number): Promise<void> {
  if (dialect === 'postgres')
    await sql`select pg_advisory_xact_lock(${ADVISORY_LOCK_NAMESPACE}, hashtext(${`quota:${organizationId}`}))`.execute(transaction);
}

/** Forgets the organization's reservations whose runs died without settling them. */
export async function deleteExpiredReservations(transaction: Kysely<Database>, organizationId: number, now: string): Promise<void> {
  await transaction.deleteFrom('quota_reservations').where('organization_id', '=', organizationId).where('expires_at', '<=', now).execute();
}

/** Which sums one admission needs; a part whose limit is not set is not read. */
export interface QuotaCountsQuery {
  organizationId: number;
  userId: number;
  assistantId: number;
  /** Inclusive UTC days, YYYY-MM-DD: the months are read live from liveFrom (their earlier days by readSettledSums). */
  liveFrom: string;
  today: string;
  now: string;
  organizationMonth: boolean;
  userDay: boolean;
  assistantMonth: boolean;
}

export interface WindowSums {
  requests: number;
  tokens: number;
  cost_micro_usd: number;
}

export interface HeldSums {
  count: number;
  tokens: number;
  cost_micro_usd: number;
}

export interface QuotaCounts {
  organizationMonth: WindowSums;
  userDay: WindowSums;
  assistantMonth: WindowSums;
  /** The unexpired reservations in each scope: the organization's, the user's there, the assistant's. */
  heldByOrganization: HeldSums;
  heldByUser: HeldSums;
  heldByAssistant: HeldSums;
}

type CountsRow = Record<string, number | string | null>;

function windowPart(prefix: string, where: RawBuilder<unknown>): RawBuilder<unknown> {
  return sql`(select sum(requests) as ${sql.raw(`${prefix}_requests`)},
      sum(prompt_tokens + completion_tokens) as ${sql.raw(`${prefix}_tokens`)},
      sum(cost_micro_usd) as ${sql.raw(`${prefix}_cost`)}
    from usage_daily where ${where}) as ${sql.raw(prefix)}`;
}

function heldPart(query: QuotaCountsQuery): RawBuilder<unknown> {
  const user = sql`user_id = ${query.userId}`;
  const assistant = sql`assistant_id = ${query.assistantId}`;
  return sql`(select count(*) as held_count, sum(tokens) as held_tokens, sum(cost_micro_usd) as held_cost,
      sum(case when ${user} then 1 else 0 end) as held_user_count, sum(case when ${user} then tokens else 0 end) as held_user_tokens,
      sum(case when ${user} then cost_micro_usd else 0 end) as held_user_cost,
      sum(case when ${assistant} then 1 else 0 end) as held_assistant_count,
      sum(case when ${assistant} then tokens else 0 end) as held_assistant_tokens,
      sum(case when ${assistant} then cost_micro_usd else 0 end) as held_assistant_cost
    from quota_reservations where organization_id = ${query.organizationId} and expires_at > ${query.now}) as held`;
}

function sumsOf(row: CountsRow, prefix: string): WindowSums {
  return {
    requests: Number(row[`${prefix}_requests`] ?? 0),
    tokens: Number(row[`${prefix}_tokens`] ?? 0),
    cost_micro_usd: Number(row[`${prefix}_cost`] ?? 0),
  };
}

function heldOf(row: CountsRow, prefix: string): HeldSums {
  return {
    count: Number(row[`${prefix}_count`] ?? 0),
    tokens: Number(row[`${prefix}_tokens`] ?? 0),
    cost_micro_usd: Number(row[`${prefix}_cost`] ?? 0),
  };
}

/**
 * Everything an admission compares with its limits, in ONE statement: on PostgreSQL a statement
 * sees one snapshot, so a run settling meanwhile (its usage added and its reservation deleted in
 * one transaction) is seen either wholly or not at all, never counted twice or not at all.
 */
export async function readQuotaCounts(db: Kysely<Database>, query: QuotaCountsQuery): Promise<QuotaCounts> {
  const { organizationId, userId, assistantId, liveFrom, today } = query;
  const parts: RawBuilder<unknown>[] = [heldPart(query)];
  if (query.organizationMonth)
    parts.push(windowPart('organization', sql`organization_id = ${organizationId} and day >= ${liveFrom} and day <= ${today}`));
  if (query.userDay) parts.push(windowPart('person', sql`user_id = ${userId} and day = ${today} and organization_id = ${organizationId}`));
  if (query.assistantMonth)
    parts.push(windowPart('assistant', sql`assistant_id = ${assistantId} and day >= ${liveFrom} and day <= ${today}`));
  const result = await sql<CountsRow>`select * from ${sql.join(parts, sql` cross join `)}`.execute(db);
  const row = result.rows[0] ?? {};
  return {
    organizationMonth: sumsOf(row, 'organization'),
    userDay: sumsOf(row, 'person'),
    assistantMonth: sumsOf(row, 'assistant'),
    heldByOrganization: heldOf(row, 'held'),
    heldByUser: heldOf(row, 'held_user'),
    heldByAssistant: heldOf(row, 'held_assistant'),
  };
}

/** The sums of an organization's or an assistant's days from `from` to `to`, included: days that no longer change. */
export async function readSettledSums(
  db: Kysely<Database>,
  scope: { column: 'organization_id' | 'assistant_id'; id: number; from: string; to: string },
): Promise<WindowSums> {
  const result =
    await sql<CountsRow>`select * from ${windowPart('settled', sql`${sql.ref(scope.column)} = ${scope.id} and day >= ${scope.from} and day <= ${scope.to}`)}`.execute(
      db,
    );
  return sumsOf(result.rows[0] ?? {}, 'settled');
}

export interface NewReservation {
  organization_id: number;
  user_id: number;
  assistant_id: number;
  tokens: number;
  cost_micro_usd: number;
  expires_at: string;
}

export async function insertReservation(transaction: Kysely<Database>, reservation: NewReservation): Promise<number> {
  const { id } = await transaction.insertInto('quota_reservations').values(reservation).returning('id').executeTakeFirstOrThrow();
  return id;
}

/** Settles or releases reservations: their runs' usage is in the roll-up, or they never ran. */
export async function deleteReservations(db: Kysely<Database>, ids: readonly number[]): Promise<void> {
  if (ids.length === 0) return;
  await db
    .deleteFrom('quota_reservations')
    .where('id', 'in', [...ids])
    .execute();
}

export type AssistantQuotaRow = AssistantQuotasTable;

export async function findAssistantQuota(db: Kysely<Database>, assistantId: number): Promise<AssistantQuotaRow | undefined> {
  return db.selectFrom('assistant_quotas').selectAll().where('assistant_id', '=', assistantId).executeTakeFirst();
}

export async function saveAssistantQuota(db: Kysely<Database>, row: AssistantQuotaRow): Promise<void> {
  await db
    .insertInto('assistant_quotas')
    .values(row)
    .onConflict((conflict) =>
      conflict.column('assistant_id').doUpdateSet({
        cost_per_month_usd: row.cost_per_month_usd,
        alert_thresholds: row.alert_thresholds,
        updated_at: row.updated_at,
      }),
    )
    .execute();
}

export async function deleteAssistantQuota(db: Kysely<Database>, assistantId: number): Promise<void> {
  await db.deleteFrom('assistant_quotas').where('assistant_id', '=', assistantId).execute();
}

/** The thresholds already recorded as crossed in the month, with when. */
export async function listQuotaAlerts(
  db: Kysely<Database>,
  assistantId: number,
  month: string,
): Promise<{ threshold: number; crossed_at: string }[]> {
  return db
    .selectFrom('assistant_quota_alerts')
    .select(['threshold', 'crossed_at'])
    .where('assistant_id', '=', assistantId)
    .where('month', '=', month)
    .orderBy('threshold')
    .execute();
}

/** Records a threshold as crossed; false when it already was this month (another process got there first). */
export async function recordQuotaAlert(
  db: Kysely<Database>,
  alert: { assistant_id: number; month: string; threshold: number; crossed_at: string },
): Promise<boolean> {
  const rows = await db
    .insertInto('assistant_quota_alerts')
    .values(alert)
    .onConflict((conflict) => conflict.columns(['assistant_id', 'month', 'threshold']).doNothing())
    .returning('threshold')
    .execute();
  return rows.length === 1;
}
