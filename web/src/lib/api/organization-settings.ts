/**
 * The organization settings area of the API, for /admin/settings: the one settings document
 * (/api/organizations/{id}/settings, keys write-only), the installed plugins described, self sign-up and its key, the model price
 * table, and for system admins the organizations to pick from. Every call goes through the typed
 * client.
 */
import { answerOf, apiClient } from './client';
import type { JsonAnswer } from './json-answer';
import type { RequestBody } from './request-body';

export type OrganizationSettings = JsonAnswer<'/api/organizations/{id}/settings', 'get'>;
export type OrganizationSettingsPatch = RequestBody<'/api/organizations/{id}/settings', 'patch'>;
export type SignUpSettings = JsonAnswer<'/api/organizations/{id}/sign-up', 'get'>;
export type SignUpSettingsInput = RequestBody<'/api/organizations/{id}/sign-up', 'put'>;
export type ModelPrices = JsonAnswer<'/api/organizations/{id}/model-prices', 'get'>;
export type ModelPrice = ModelPrices['prices'][number];
export type ModelPriceInput = RequestBody<'/api/organizations/{id}/model-prices', 'put'>['prices'][number];
export type PluginCatalogue = JsonAnswer<'/api/organizations/{id}/plugins', 'get'>;

function path(id: number): { params: { path: { id: number } } } {
  return { params: { path: { id } } };
}

export async function readOrganizationSettings(id: number): Promise<OrganizationSettings> {
  return answerOf(apiClient.GET('/api/organizations/{id}/settings', path(id)));
}

/** Saves the fields the patch names; the answer is the whole document again, keys still write-only. */
export async function updateOrganizationSettings(id: number, body: OrganizationSettingsPatch): Promise<OrganizationSettings> {
  return answerOf(apiClient.PATCH('/api/organizations/{id}/settings', { ...path(id), body }));
}

/** Every installed plugin with a name to show, its description and whether the organization enables it. */
export async function readPluginCatalogue(id: number): Promise<PluginCatalogue> {
  return answerOf(apiClient.GET('/api/organizations/{id}/plugins', path(id)));
}

export async function readSignUpSettings(id: number): Promise<SignUpSettings> {
  return answerOf(apiClient.GET('/api/organizations/{id}/sign-up', path(id)));
}

/** Saves sign-up; turning it on without a key answers with the new key, this once. */
export async function saveSignUpSettings(id: number, body: SignUpSettingsInput): Promise<SignUpSettings> {
  return answerOf(apiClient.PUT('/api/organizations/{id}/sign-up', { ...path(id), body }));
}

/** Makes a new sign-up key (the old one stops working); the answer holds it, this once. */
export async function rotateSignUpKey(id: number): Promise<SignUpSettings> {
  return answerOf(apiClient.POST('/api/organizations/{id}/sign-up/rotate', path(id)));
}

export async function readModelPrices(id: number): Promise<ModelPrices> {
  return answerOf(apiClient.GET('/api/organizations/{id}/model-prices', path(id)));
}

/** Replaces the organization's own prices; an empty list returns to the defaults. */
export async function replaceModelPrices(id: number, prices: ModelPriceInput[]): Promise<ModelPrices> {
  return answerOf(apiClient.PUT('/api/organizations/{id}/model-prices', { ...path(id), body: { prices } }));
}
