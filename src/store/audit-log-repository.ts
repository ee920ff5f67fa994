/**
 * The audit log: who did what to which object. Entries hold identifiers only, never secrets or
 * user text, and are written in the same transaction as the change they record.
 */
import { sql, type Kysely } from 'kysely';
import type { PageBounds } from '../validation/page-query-schema.js';
import type { AuditScope } from './list-scopes.js';
import { insertRowBatch, type RowBatchShape } from './row-batch-insert.js';
import { containsText } from './search-pattern.js';
import { nowTimestamp, type AuditLogRow, type Database } from './schema.js';

export interface AuditEntry {
  actorUserId: number | null;
  organizationId: number | null;
  action: string;
  targetType: string;
  targetId: string | number | null;
  details?: Record<string, string | number | boolean | null | string[] | number[]>;
  requestId?: string | null;
}

export async function appendAuditEntry(db: Kysely<Database>, entry: AuditEntry): Promise<void> {
  await appendAuditEntries(db, [entry]);
}

/** An audit entry's row, as appendAuditEntries writes it. */
const AUDIT_ROW: RowBatchShape = {
  table: 'audit_log',
  columns: ['created_at', 'actor_user_id', 'organization_id', 'action', 'target_type', 'target_id', 'details', 'request_id'],
  postgresTypes: ['text', 'integer', 'integer', 'text', 'text', 'text', 'text', 'text'],
};

/** Several entries (of one change, such as a batch of documents) in one statement on PostgreSQL, a few on SQLite. */
export async function appendAuditEntries(db: Kysely<Database>, entries: readonly AuditEntry[]): Promise<void> {
  const createdAt = nowTimestamp();
  const values = entries.flatMap((entry) => [
    createdAt,
    entry.actorUserId,
    entry.organizationId,
    entry.action,
    entry.targetType,
    entry.targetId === null ? null : String(entry.targetId),
    JSON.stringify(entry.details ?? {}),
    entry.requestId ?? null,
  ]);
  await insertRowBatch(db, AUDIT_ROW, values);
}

export async function listAuditEntries(db: Kysely<Database>, filter: { action?: string; targetId?: string } = {}): Promise<AuditLogRow[]> {
  let query = db.selectFrom('audit_log').selectAll();
  if (filter.action !== undefined) query = query.where('action', '=', filter.action);
  if (filter.targetId !== undefined) query = query.where('target_id', '=', filter.targetId);
  return query.orderBy('id').execute();
}

export interface AuditTarget {
  type: string;
  id: string | number;
  organizationId: number | null;
}

/** What a page of the audit log may be narrowed to; every field is optional. */
export interface AuditFilter {
  /** `user.create` matches that action only; `user` matches every `user.…` action. */
  action?: string | undefined;
  actorUserId?: number | undefined;
  /** Part of the acting user's name or email. */
  actor?: string | undefined;
  targetType?: string | undefined;
  targetId?: string | undefined;
  /** ISO timestamps: entries at or after `from`, and before `before`. */
  from?: string | undefined;
  before?: string | undefined;
}

/** An audit entry with the acting user's name and email (null when nobody acted, or the account is gone). */
export type AuditRowWithActor = AuditLogRow & { actor_name: string | null; actor_email: string | null };

function filteredAuditEntries(db: Kysely<Database>, scope: AuditScope, filter: AuditFilter) {
  let query = db.selectFrom('audit_log').leftJoin('users', 'users.id', 'audit_log.actor_user_id');
  if (scope.kind === 'organization') query = query.where('audit_log.organization_id', '=', scope.organizationId);
  if (filter.action !== undefined)
    query = filter.action.includes('.')
      ? query.where('audit_log.action', '=', filter.action)
      : // A prefix compared as text, not with LIKE, where the `_` of `sign_up` would match any character.
        query.where(sql<string>`substr(${sql.ref('audit_log.action')}, 1, ${filter.action.length + 1})`, '=', `${filter.action}.`);
  if (filter.actorUserId !== undefined) query = query.where('audit_log.actor_user_id', '=', filter.actorUserId);
  if (filter.actor !== undefined) query = query.where(containsText('users.search_text', filter.actor));
  if (filter.targetType !== undefined) query = query.where('audit_log.target_type', '=', filter.targetType);
  if (filter.targetId !== undefined) query = query.where('audit_log.target_id', '=', filter.targetId);
  if (filter.from !== undefined) query = query.where('audit_log.created_at', '>=', filter.from);
  if (filter.before !== undefined) query = query.where('audit_log.created_at', '<', filter.before);
  return query;
}

/** One page of the entries the scope and filter allow, newest first, and how many there are in all. */
export async function listAuditPage(
  db: Kysely<Database>,
  query: { scope: AuditScope; filter: AuditFilter; page: PageBounds },
): Promise<{ items: AuditRowWithActor[]; total: number }> {
  const filtered = filteredAuditEntries(db, query.scope, query.filter);
  const items = await filtered
    .selectAll('audit_log')
    .select(['users.name as actor_name', 'users.email as actor_email'])
    .orderBy('audit_log.id', 'desc')
    .limit(query.page.limit)
    .offset(query.page.offset)
    .execute();
  const { total } = await filtered.select((eb) => eb.fn.countAll().as('total')).executeTakeFirstOrThrow();
  return { items, total: Number(total) };
}
