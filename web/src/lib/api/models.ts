/**
 * The studio's Model list (GET /api/models): each of the organization's providers with the models
 * it serves as the provider itself lists them, or why it is unavailable. Through the typed client.
 */
import { answerOf, apiClient } from './client';
import type { JsonAnswer } from './json-answer';

export type ModelList = JsonAnswer<'/api/models', 'get'>;
export type ProviderModels = ModelList['providers'][number];

export async function readModelList(): Promise<ModelList> {
  return answerOf(apiClient.GET('/api/models'));
}
