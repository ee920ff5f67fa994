/**
 * The rubrics area of the API (/api/rubrics) as the /rubrics pages use it: the caller's rubrics
 * and their organization's, one rubric, create, change, delete, LAMB JSON import and export, and
 * the preview of the evaluation document rubric_rag puts in {rubric}. Every call goes through the
 * typed client.
 */
import { answerOf, apiClient, saveDownload } from './client';
import type { JsonAnswer } from './json-answer';
import type { RequestBody } from './request-body';
import type { RubricScope } from './knowledge';

export type RubricSummary = JsonAnswer<'/api/rubrics', 'get'>['items'][number];
export type RubricSummaryPage = JsonAnswer<'/api/rubrics', 'get'>;
export type Rubric = JsonAnswer<'/api/rubrics/{rubricId}', 'get'>;
export type RubricBody = RequestBody<'/api/rubrics', 'post'>;
export type RubricPreview = JsonAnswer<'/api/rubrics/preview', 'post'>;

export async function listRubricPage(scope: RubricScope): Promise<RubricSummaryPage> {
  return answerOf(apiClient.GET('/api/rubrics', { params: { query: { scope } } }));
}

function byRubricId(rubricId: string) {
  return { params: { path: { rubricId } } };
}

export async function readRubric(rubricId: string): Promise<Rubric> {
  return answerOf(apiClient.GET('/api/rubrics/{rubricId}', byRubricId(rubricId)));
}

export async function createRubric(body: RubricBody): Promise<Rubric> {
  return answerOf(apiClient.POST('/api/rubrics', { body }));
}

export async function updateRubric(rubricId: string, body: RubricBody): Promise<Rubric> {
  return answerOf(apiClient.PATCH('/api/rubrics/{rubricId}', { ...byRubricId(rubricId), body }));
}

export async function deleteRubric(rubricId: string): Promise<void> {
  await answerOf(apiClient.DELETE('/api/rubrics/{rubricId}', byRubricId(rubricId)));
}

/** Imports LAMB rubric JSON (or a LAMB rubric row) as a new private rubric with a new rubricId. */
export async function importRubric(document: Record<string, unknown>): Promise<Rubric> {
  return answerOf(apiClient.POST('/api/rubrics/import', { body: document }));
}

/** Downloads the rubric as LAMB rubric JSON, under the file name the server gives it. */
export async function downloadRubric(rubricId: string): Promise<void> {
  await saveDownload(
    apiClient.GET('/api/rubrics/{rubricId}/export', { params: { path: { rubricId }, query: { format: 'json' } }, parseAs: 'blob' }),
    'rubric.json',
  );
}

/** The evaluation document rubric_rag would put in {rubric} for this rubric, saved or not. */
export async function previewRubric(body: RubricBody, signal?: AbortSignal): Promise<RubricPreview> {
  return answerOf(apiClient.POST('/api/rubrics/preview', { body, params: { query: { format: 'markdown' } }, ...(signal && { signal }) }));
}
