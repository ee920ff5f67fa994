/** What a service needs to know about the call it serves: who asks, and the request id for the audit log. */
import type { AuditEntry, AuditTarget } from '../store/audit-log-repository.js';
import type { Identity } from './identity.js';

export interface CallContext {
  identity: Identity;
  requestId: string | null;
}

/** The audit entry of something a caller did to a target: actor and request id come from the call. */
export function auditEntryOf(context: CallContext, target: AuditTarget, action: string, details?: AuditEntry['details']): AuditEntry {
  return {
    actorUserId: context.identity.userId,
    organizationId: target.organizationId,
    action,
    targetType: target.type,
    targetId: target.id,
    details,
    requestId: context.requestId,
  };
}
