/**
 * Reading the audit log (GET /api/audit, docs/audit-log.md): a page of entries, newest first,
 * narrowed by action, actor, target and a range of UTC days, within what the permission module
 * lets the caller see. Entries are written by each service in the transaction of its change; this
 * service only reads them, and passes on only safe details.
 */
import type { Kysely } from 'kysely';
import { AppError } from '../errors/app-error.js';
import { listAuditPage, type AuditFilter, type AuditRowWithActor } from '../store/audit-log-repository.js';
import type { Database } from '../store/schema.js';
import type { AuditEntryView, AuditQuery } from './audit-schemas.js';
import type { CallContext } from './call-context.js';
import { auditScope } from './permissions.js';

const DAY_MILLISECONDS = 86_400_000;
/** Detail keys that could name a secret. Services never write one; this keeps a slip from ever reaching a reader. */
const SECRET_KEY = /secret|password|token|api_key|private/i;
const DETAIL_TEXT_MAXIMUM = 200;

type DetailValue = string | number | boolean | null | Array<string | number>;

function dayStart(text: string, param: 'from' | 'to'): number {
  const time = Date.parse(`${text}T00:00:00Z`);
  // 2025-02-30 parses as March 2nd in some engines: a real day prints back as itself.
  if (Number.isNaN(time) || new Date(time).toISOString().slice(0, 10) !== text)
    throw new AppError('invalid_query', `${param} is not a real day; write it as YYYY-MM-DD.`, { param });
  return time;
}

function filterOf(query: AuditQuery): AuditFilter {
  const from = query.from === undefined ? undefined : dayStart(query.from, 'from');
  const to = query.to === undefined ? undefined : dayStart(query.to, 'to');
  if (from !== undefined && to !== undefined && from > to)
    throw new AppError('invalid_query', 'from is after to; give from on or before to.', { param: 'from' });
  return {
    action: query.action,
    actorUserId: query.actor_user_id,
    actor: query.actor?.trim() || undefined,
    targetType: query.target_type,
    targetId: query.target_id,
    from: from === undefined ? undefined : new Date(from).toISOString(),
    before: to === undefined ? undefined : new Date(to + DAY_MILLISECONDS).toISOString(),
  };
}

function safeValue(value: unknown): DetailValue | undefined {
  if (value === null || typeof value === 'number' || typeof value === 'boolean') return value;
  if (typeof value === 'string') return value.slice(0, DETAIL_TEXT_MAXIMUM);
  if (Array.isArray(value) && value.every((item) => typeof item === 'string' || typeof item === 'number'))
    return value.slice(0, 50).map((item) => (typeof item === 'string' ? item.slice(0, DETAIL_TEXT_MAXIMUM) : item));
  return undefined;
}

/** The details as stored, keeping only flat values under keys that cannot name a secret. */
function safeDetails(stored: string): Record<string, DetailValue> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(stored);
  } catch {
    return {};
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return {};
  const kept = Object.entries(parsed).flatMap(([key, value]) => {
    const safe = SECRET_KEY.test(key) ? undefined : safeValue(value);
    return safe === undefined ? [] : [[key, safe] as const];
  });
  return Object.fromEntries(kept);
}

function auditEntryView(row: AuditRowWithActor): AuditEntryView {
  return {
    id: row.id,
    created_at: row.created_at,
    action: row.action,
    organization_id: row.organization_id,
    actor_user_id: row.actor_user_id,
    actor_name: row.actor_name,
    actor_email: row.actor_email,
    target_type: row.target_type,
    target_id: row.target_id,
    details: safeDetails(row.details),
    request_id: row.request_id,
  };
}

export class AuditLogService {
  constructor(private readonly db: Kysely<Database>) {}

  async list(context: CallContext, query: AuditQuery): Promise<{ items: AuditEntryView[]; total: number }> {
    const scope = auditScope(context.identity, query.organization_id);
    const page = await listAuditPage(this.db, { scope, filter: filterOf(query), page: { limit: query.limit, offset: query.offset } });
    return { items: page.items.map(auditEntryView), total: page.total };
  }
}
