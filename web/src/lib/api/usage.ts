/**
 * The usage area of the API (docs/usage.md): reports of requests, tokens and cost over a range of
 * days, as JSON for the charts and as the server's own CSV for export, and the organization's
 * limits the quota gauges measure against. Through the typed client only.
 */
import { ApiError } from './api-error';
import { answerOf, apiClient, saveDownload } from './client';
import type { JsonAnswer } from './json-answer';

export type UsageReport = JsonAnswer<'/api/usage', 'get'>;
export type UsageGroup = UsageReport['groups'][number];
export type UsageGrouping = UsageReport['group_by'];
export type OrganizationLimits = JsonAnswer<'/api/organizations/{id}/settings', 'get'>['limits'];

/** What a report covers: UTC days (YYYY-MM-DD, both included) and what narrows it. */
export interface UsageQuery {
  from: string;
  to: string;
  group_by: UsageGrouping;
  organization_id?: number;
  assistant_id?: number;
}

export async function readUsage(query: UsageQuery): Promise<UsageReport> {
  const answer = await answerOf(apiClient.GET('/api/usage', { params: { query } }));
  // The route may answer CSV, but not to a JSON request without format=csv.
  if (typeof answer === 'string') throw new ApiError({ status: 200, code: 'unexpected_response', message: 'The answer was not JSON.' });
  return answer;
}

/** Saves the server's CSV of the same report (the name comes from its content-disposition). */
export async function downloadUsageCsv(query: UsageQuery): Promise<void> {
  const fallbackName = `usage-${query.from}-${query.to}-by-${query.group_by}.csv`;
  await saveDownload(apiClient.GET('/api/usage', { params: { query: { ...query, format: 'csv' } }, parseAs: 'blob' }), fallbackName);
}

/** The organization's limits (tokens_per_month, cost_per_month_usd, …); null means no limit. */
export async function readOrganizationLimits(organizationId: number): Promise<OrganizationLimits> {
  const settings = await answerOf(apiClient.GET('/api/organizations/{id}/settings', { params: { path: { id: organizationId } } }));
  return settings.limits;
}
