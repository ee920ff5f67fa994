/**
 * The template library (/api/templates, docs/templates.md) as the pages use it: the list with its
 * filters, one template, create, change, delete, duplicate, and "save as template" from an
 * assistant or a rubric. Every call goes through the typed client.
 */
import { answerOf, apiClient } from './client';
import type { JsonAnswer } from './json-answer';
import type { RequestBody } from './request-body';

export type TemplatePage = JsonAnswer<'/api/templates', 'get'>;
export type TemplateSummary = TemplatePage['items'][number];
export type Template = JsonAnswer<'/api/templates/{id}', 'get'>;
export type TemplateBody = RequestBody<'/api/templates', 'post'>;
export type TemplateChange = RequestBody<'/api/templates/{id}', 'patch'>;
export type SaveAsTemplateBody = RequestBody<'/api/assistants/{id}/save-as-template', 'post'>;
export type TemplateKind = TemplateSummary['kind'];
export type TemplateVisibility = TemplateSummary['visibility'];
export type TemplateAction = TemplateSummary['allowed_actions'][number];

/** The list's filters; an unset one does not narrow it. */
export interface TemplateFilters {
  kind?: TemplateKind | undefined;
  visibility?: TemplateVisibility | undefined;
  tag?: string | undefined;
  language?: string | undefined;
  q?: string | undefined;
}

/** The page of templates the pickers and the library show: as many as one page holds. */
const LIST_LIMIT = 100;

function byId(id: number) {
  return { params: { path: { id } } };
}

export async function listTemplates(filters: TemplateFilters): Promise<TemplatePage> {
  const query = Object.fromEntries(Object.entries(filters).filter(([, value]) => value !== undefined && value !== ''));
  return answerOf(apiClient.GET('/api/templates', { params: { query: { ...query, limit: LIST_LIMIT } } }));
}

export async function readTemplate(id: number): Promise<Template> {
  return answerOf(apiClient.GET('/api/templates/{id}', byId(id)));
}

export async function createTemplate(body: TemplateBody): Promise<Template> {
  return answerOf(apiClient.POST('/api/templates', { body }));
}

export async function changeTemplate(id: number, body: TemplateChange): Promise<Template> {
  return answerOf(apiClient.PATCH('/api/templates/{id}', { ...byId(id), body }));
}

export async function deleteTemplate(id: number): Promise<void> {
  await answerOf(apiClient.DELETE('/api/templates/{id}', byId(id)));
}

/** The caller's own personal copy of a template they may read. */
export async function duplicateTemplate(id: number): Promise<Template> {
  return answerOf(apiClient.POST('/api/templates/{id}/duplicate', byId(id)));
}

export async function saveAssistantAsTemplate(assistantId: number, body: SaveAsTemplateBody): Promise<Template> {
  return answerOf(apiClient.POST('/api/assistants/{id}/save-as-template', { ...byId(assistantId), body }));
}

export async function saveRubricAsTemplate(rubricId: string, body: SaveAsTemplateBody): Promise<Template> {
  return answerOf(apiClient.POST('/api/rubrics/{rubricId}/save-as-template', { params: { path: { rubricId } }, body }));
}

export function mayDo(template: TemplateSummary, action: TemplateAction): boolean {
  return template.allowed_actions.includes(action);
}
