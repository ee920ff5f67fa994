/**
 * The LTI administration area of the API (/api/lti): the tool's own URLs, LTI 1.1 consumers and
 * LTI 1.3 platform registrations. Every call goes through the typed client.
 */
import { answerOf, apiClient } from './client';
import type { JsonAnswer } from './json-answer';
import type { RequestBody } from './request-body';

/** The tool's own URLs, which a platform's administrator copies. */
export type ToolUrls = JsonAnswer<'/api/lti/tool', 'get'>;
export type LtiConsumer = JsonAnswer<'/api/lti/consumers', 'get'>['items'][number];
/** A consumer as created: with its secret, shown this once. */
export type CreatedLtiConsumer = JsonAnswer<'/api/lti/consumers', 'post'>;
export type LtiPlatform = JsonAnswer<'/api/lti/platforms', 'get'>['items'][number];

export type NewLtiConsumer = RequestBody<'/api/lti/consumers', 'post'>;
export type NewLtiPlatform = RequestBody<'/api/lti/platforms', 'post'>;

export async function readToolUrls(): Promise<ToolUrls> {
  return answerOf(apiClient.GET('/api/lti/tool'));
}

export async function listConsumers(): Promise<LtiConsumer[]> {
  return (await answerOf(apiClient.GET('/api/lti/consumers'))).items;
}

/** Creates a consumer; the answer holds its secret, shown this once. */
export async function createConsumer(body: NewLtiConsumer): Promise<CreatedLtiConsumer> {
  return answerOf(apiClient.POST('/api/lti/consumers', { body }));
}

export async function deleteConsumer(id: number): Promise<void> {
  await answerOf(apiClient.DELETE('/api/lti/consumers/{id}', { params: { path: { id } } }));
}

export async function listPlatforms(): Promise<LtiPlatform[]> {
  return (await answerOf(apiClient.GET('/api/lti/platforms'))).items;
}

export async function registerPlatform(body: NewLtiPlatform): Promise<LtiPlatform> {
  return answerOf(apiClient.POST('/api/lti/platforms', { body }));
}

export async function deletePlatform(id: number): Promise<void> {
  await answerOf(apiClient.DELETE('/api/lti/platforms/{id}', { params: { path: { id } } }));
}
