/**
 * An assistant's own monthly cost limit and alert thresholds (docs/quotas.md), with this month's
 * spend and each threshold's state, for those who manage the assistant. Through the typed client only.
 */
import { answerOf, apiClient } from './client';
import type { JsonAnswer } from './json-answer';

export type AssistantQuota = JsonAnswer<'/api/assistants/{id}/quota', 'get'>;
/** What a save sends: `cost_per_month_usd: null` removes the limit. */
export interface AssistantQuotaChange {
  cost_per_month_usd: number | null;
  alert_thresholds: number[];
}

export async function readAssistantQuota(assistantId: number): Promise<AssistantQuota> {
  return answerOf(apiClient.GET('/api/assistants/{id}/quota', { params: { path: { id: assistantId } } }));
}

export async function saveAssistantQuota(assistantId: number, change: AssistantQuotaChange): Promise<AssistantQuota> {
  return answerOf(apiClient.PUT('/api/assistants/{id}/quota', { params: { path: { id: assistantId } }, body: change }));
}
