/**
 * The one string catalogue: every language's areas, keyed the same way. A page adds its own area
 * (a file in en/ and es/), so pages can grow without touching one another's strings.
 */
import type { Catalogue, PartialCatalogue } from './catalogue-types';
import { common as commonEn } from './en/common';
import { login as loginEn } from './en/login';
import { assistantList as assistantListEn } from './en/assistant-list';
import { assistantForm as assistantFormEn } from './en/assistant-form';
import { classicForm as classicFormEn } from './en/classic-form';
import { toolsManager as toolsManagerEn } from './en/tools-manager';
import { sharing as sharingEn } from './en/sharing';
import { importExport as importExportEn } from './en/import-export';
import { apiKeys as apiKeysEn } from './en/api-keys';
import { ltiAdmin as ltiAdminEn } from './en/lti-admin';
import { chat as chatEn } from './en/chat';
import { studio as studioEn } from './en/studio';
import { chatVersions as chatVersionsEn } from './en/chat-versions';
import { serverErrors as serverErrorsEn } from './en/server-errors';
import { modelList as modelListEn } from './en/model-list';
import { knowledgeBaseList as knowledgeBaseListEn } from './en/knowledge-base-list';
import { knowledgeText as knowledgeTextEn } from './en/knowledge-text';
import { knowledgeBasePage as knowledgeBasePageEn } from './en/knowledge-base-page';
import { rubrics as rubricsEn } from './en/rubrics';
import { templates as templatesEn } from './en/templates';
import { materials as materialsEn } from './en/materials';
import { fileList as fileListEn } from './en/file-list';
import { usage as usageEn } from './en/usage';
import { assistantTests as assistantTestsEn } from './en/assistant-tests';
import { testSources as testSourcesEn } from './en/test-sources';
import { organizationSettings as organizationSettingsEn } from './en/organization-settings';
import { admin as adminEn } from './en/admin';
import { insights as insightsEn } from './en/insights';
import { mcpServers as mcpServersEn } from './en/mcp-servers';
import { sourceLinks as sourceLinksEn } from './en/source-links';
import { common as commonEs } from './es/common';
import { login as loginEs } from './es/login';
import { assistantList as assistantListEs } from './es/assistant-list';
import { assistantForm as assistantFormEs } from './es/assistant-form';
import { classicForm as classicFormEs } from './es/classic-form';
import { toolsManager as toolsManagerEs } from './es/tools-manager';
import { sharing as sharingEs } from './es/sharing';
import { importExport as importExportEs } from './es/import-export';
import { apiKeys as apiKeysEs } from './es/api-keys';
import { ltiAdmin as ltiAdminEs } from './es/lti-admin';
import { chat as chatEs } from './es/chat';
import { studio as studioEs } from './es/studio';
import { chatVersions as chatVersionsEs } from './es/chat-versions';
import { serverErrors as serverErrorsEs } from './es/server-errors';
import { modelList as modelListEs } from './es/model-list';
import { knowledgeBaseList as knowledgeBaseListEs } from './es/knowledge-base-list';
import { knowledgeText as knowledgeTextEs } from './es/knowledge-text';
import { knowledgeBasePage as knowledgeBasePageEs } from './es/knowledge-base-page';
import { rubrics as rubricsEs } from './es/rubrics';
import { templates as templatesEs } from './es/templates';
import { materials as materialsEs } from './es/materials';
import { fileList as fileListEs } from './es/file-list';
import { usage as usageEs } from './es/usage';
import { assistantTests as assistantTestsEs } from './es/assistant-tests';
import { testSources as testSourcesEs } from './es/test-sources';
import { organizationSettings as organizationSettingsEs } from './es/organization-settings';
import { admin as adminEs } from './es/admin';
import { insights as insightsEs } from './es/insights';
import { mcpServers as mcpServersEs } from './es/mcp-servers';
import { sourceLinks as sourceLinksEs } from './es/source-links';

export const english = {
  common: commonEn,
  login: loginEn,
  assistantList: assistantListEn,
  assistantForm: assistantFormEn,
  classicForm: classicFormEn,
  toolsManager: toolsManagerEn,
  sharing: sharingEn,
  importExport: importExportEn,
  apiKeys: apiKeysEn,
  ltiAdmin: ltiAdminEn,
  chat: chatEn,
  studio: studioEn,
  chatVersions: chatVersionsEn,
  serverErrors: serverErrorsEn,
  modelList: modelListEn,
  knowledgeBaseList: knowledgeBaseListEn,
  knowledgeText: knowledgeTextEn,
  knowledgeBasePage: knowledgeBasePageEn,
  rubrics: rubricsEn,
  templates: templatesEn,
  materials: materialsEn,
  fileList: fileListEn,
  usage: usageEn,
  assistantTests: assistantTestsEn,
  testSources: testSourcesEn,
  organizationSettings: organizationSettingsEn,
  admin: adminEn,
  insights: insightsEn,
  mcpServers: mcpServersEn,
  sourceLinks: sourceLinksEn,
};

export type English = typeof english;

const spanish: Catalogue<English> = {
  common: commonEs,
  login: loginEs,
  assistantList: assistantListEs,
  assistantForm: assistantFormEs,
  classicForm: classicFormEs,
  toolsManager: toolsManagerEs,
  sharing: sharingEs,
  importExport: importExportEs,
  apiKeys: apiKeysEs,
  ltiAdmin: ltiAdminEs,
  chat: chatEs,
  studio: studioEs,
  chatVersions: chatVersionsEs,
  serverErrors: serverErrorsEs,
  modelList: modelListEs,
  knowledgeBaseList: knowledgeBaseListEs,
  knowledgeText: knowledgeTextEs,
  knowledgeBasePage: knowledgeBasePageEs,
  rubrics: rubricsEs,
  templates: templatesEs,
  materials: materialsEs,
  fileList: fileListEs,
  usage: usageEs,
  assistantTests: assistantTestsEs,
  testSources: testSourcesEs,
  organizationSettings: organizationSettingsEs,
  admin: adminEs,
  insights: insightsEs,
  mcpServers: mcpServersEs,
  sourceLinks: sourceLinksEs,
};

/** Catalan and Basque are wired in and fall back to English key by key until translated. */
const catalan: PartialCatalogue<English> = {};
const basque: PartialCatalogue<English> = {};

export const catalogues = { en: english, es: spanish, ca: catalan, eu: basque } as const;

export type Locale = keyof typeof catalogues;

/** The languages offered in the picker: the complete ones. */
export const offeredLocales: { code: Locale; name: string }[] = [
  { code: 'en', name: 'English' },
  { code: 'es', name: 'Español' },
];
