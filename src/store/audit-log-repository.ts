/**
 * The audit log: who did what to which object. Entries hold identifiers only, never secrets or
 * user text, and are written in the same transaction as the change they record.
 */
import type { Kysely } from 'kysely';
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
  await db
    .insertInto('audit_log')
    .values({
      created_at: nowTimestamp(),
      actor_user_id: entry.actorUserId,
      organization_id: entry.organizationId,
      action: entry.action,
      target_type: entry.targetType,
      target_id: entry.targetId === null ? null : String(entry.targetId),
      details: JSON.stringify(entry.details ?? {}),
      request_id: entry.requestId ?? null,
    })
    .execute();
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
