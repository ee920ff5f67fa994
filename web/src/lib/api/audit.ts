/** The audit log (/api/audit), for administrators: a filtered page of entries, newest first. */
import { answerOf, apiClient } from './client';
import type { JsonAnswer } from './json-answer';

export type AuditPage = JsonAnswer<'/api/audit', 'get'>;
export type AuditEntry = AuditPage['items'][number];

export interface AuditFilter {
  action?: string | undefined;
  actor?: string | undefined;
  from?: string | undefined;
  to?: string | undefined;
}

export async function listAuditEntries(filter: AuditFilter, page: { limit: number; offset: number }): Promise<AuditPage> {
  return answerOf(apiClient.GET('/api/audit', { params: { query: { ...filter, ...page } } }));
}
