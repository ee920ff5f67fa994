/**
 * The API keys area of the API (/api/api-keys): a person's keys, listed without the key itself,
 * created (the key shown once) and revoked. Every call goes through the typed client.
 */
import { answerOf, apiClient } from './client';
import type { JsonAnswer } from './json-answer';
import type { RequestBody } from './request-body';

/** A key as listed: never the key itself, only its first characters. */
export type ApiKey = JsonAnswer<'/api/api-keys', 'get'>['items'][number];
/** The answer to creating a key: the listed fields and the whole key, that once. */
export type CreatedApiKey = JsonAnswer<'/api/api-keys', 'post'>;
export type NewApiKey = RequestBody<'/api/api-keys', 'post'>;

export async function listApiKeys(): Promise<ApiKey[]> {
  return (await answerOf(apiClient.GET('/api/api-keys'))).items;
}

export async function createApiKey(body: NewApiKey): Promise<CreatedApiKey> {
  return answerOf(apiClient.POST('/api/api-keys', { body }));
}

export async function revokeApiKey(id: number): Promise<void> {
  await answerOf(apiClient.DELETE('/api/api-keys/{id}', { params: { path: { id } } }));
}
