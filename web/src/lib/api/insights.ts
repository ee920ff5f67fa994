/**
 * An assistant's insights (docs/assistant-insights.md) and the ratings of its answers, for whoever
 * manages it: the insights as JSON for the charts and as the server's CSV for export, and a page of
 * rated answers with the conversation that led to each. Through the typed client only.
 */
import { ApiError } from './api-error';
import { answerOf, apiClient, saveDownload } from './client';
import type { JsonAnswer } from './json-answer';

export type Insights = JsonAnswer<'/api/assistants/{id}/insights', 'get'>;
export type InsightsDay = Insights['days'][number];
export type FeedbackPage = JsonAnswer<'/api/assistants/{id}/feedback', 'get'>;
export type RatedAnswer = FeedbackPage['items'][number];

export interface InsightsPeriod {
  from: string;
  to: string;
}

export async function readInsights(assistantId: number, period: InsightsPeriod): Promise<Insights> {
  const answer = await answerOf(apiClient.GET('/api/assistants/{id}/insights', { params: { path: { id: assistantId }, query: period } }));
  // The route may answer CSV, but not to a JSON request without format=csv.
  if (typeof answer === 'string') throw new ApiError({ status: 200, code: 'unexpected_response', message: 'The answer was not JSON.' });
  return answer;
}

/** Saves the server's CSV of the same insights (the name comes from its content-disposition). */
export async function downloadInsightsCsv(assistantId: number, period: InsightsPeriod): Promise<void> {
  await saveDownload(
    apiClient.GET('/api/assistants/{id}/insights', {
      params: { path: { id: assistantId }, query: { ...period, format: 'csv' } },
      parseAs: 'blob',
    }),
    `assistant-${assistantId}-insights-${period.from}-${period.to}.csv`,
  );
}

export interface FeedbackQuery extends InsightsPeriod {
  rating?: 'up' | 'down';
  limit: number;
  offset: number;
}

export async function readRatedAnswers(assistantId: number, query: FeedbackQuery): Promise<FeedbackPage> {
  return answerOf(apiClient.GET('/api/assistants/{id}/feedback', { params: { path: { id: assistantId }, query } }));
}
