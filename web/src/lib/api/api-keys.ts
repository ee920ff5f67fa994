/**
 * The API keys area of the API (/api/api-keys): a person's keys, listed without the key itself,
 * created (the key shown once) and revoked. Every call goes through the typed client.
 */
import type { ApiKey, CreatedApiKey, NewApiKey } from '$lib/api-keys/api-key-types';
import { answerOf, apiClient, sent } from './client';

export async function listApiKeys(): Promise<ApiKey[]> {
  return sent(await answerOf(apiClient.GET('/api/api-keys'))).items;
}

export async function createApiKey(body: NewApiKey): Promise<CreatedApiKey> {
  return sent(await answerOf(apiClient.POST('/api/api-keys', { body })));
}

export async function revokeApiKey(id: number): Promise<void> {
  await answerOf(apiClient.DELETE('/api/api-keys/{id}', { params: { path: { id } } }));
}
