/**
 * The settings document as the /admin/settings form edits it, and back: every value as the text
 * or switch a control holds, secrets as a choice (keep, replace with a new value, clear) because
 * the API never shows a stored key. `patchOf` sends only what changed against the loaded document,
 * so a save names in the audit log just the fields the admin touched; the form itself is never
 * reset by a refused save.
 */
import type { OrganizationSettings, OrganizationSettingsPatch } from '$lib/api/organization-settings';

/** What to do with a write-only secret: leave the stored one, send a new one, or remove it. */
export interface SecretChange {
  action: 'keep' | 'replace' | 'clear';
  value: string;
}

export const LIMIT_NAMES = [
  'tokens_per_user_per_day',
  'tokens_per_month',
  'cost_per_month_usd',
  'max_assistants',
  'max_assistants_per_user',
  'storage_gb',
] as const;

export type LimitName = (typeof LIMIT_NAMES)[number];

export const PLUGIN_KINDS = ['tools', 'connectors', 'prompt_processors'] as const;

export type PluginKind = (typeof PLUGIN_KINDS)[number];

export interface SettingsForm {
  openaiBaseUrl: string;
  openaiKey: SecretChange;
  anthropicBaseUrl: string;
  anthropicKey: SecretChange;
  geminiBaseUrl: string;
  geminiKey: SecretChange;
  ollamaBaseUrl: string;
  modelsAllowed: string;
  modelsDefault: string;
  smallFastConnector: '' | SmallFastConnector;
  smallFastModel: string;
  knowledgeServerUrl: string;
  knowledgeServerKey: SecretChange;
  moodleUrl: string;
  moodleToken: SecretChange;
  webSearchProvider: '' | WebSearchProvider;
  webSearchUrl: string;
  webSearchKey: SecretChange;
  learnersCreateApiKeys: boolean;
  chatRetentionDays: string;
  ownersCanReadChats: boolean;
  ltiInstructorsCreate: boolean;
  frontEndCreatesLearners: boolean;
  plugins: Record<PluginKind, Record<string, boolean>>;
  limits: Record<LimitName, string>;
}

/** A form field the page checks before sending, by the API's path for it, with why it is wrong. */
export type LocalProblems = Record<string, 'number' | 'wholeNumber' | 'secretRequired'>;

/** The connectors a small fast model may run on, as the API accepts them. */
export const SMALL_FAST_CONNECTORS = ['openai', 'ollama'] as const;

type SmallFastConnector = (typeof SMALL_FAST_CONNECTORS)[number];

/** The web search providers the API accepts. */
export const WEB_SEARCH_PROVIDERS = ['searxng', 'brave', 'tavily'] as const;

type WebSearchProvider = (typeof WEB_SEARCH_PROVIDERS)[number];

function webSearchProviderOf(value: string | null | undefined): SettingsForm['webSearchProvider'] {
  return WEB_SEARCH_PROVIDERS.find((provider) => provider === value) ?? '';
}

const keep = (): SecretChange => ({ action: 'keep', value: '' });

function textOf(value: string | number | null | undefined): string {
  return value === null || value === undefined ? '' : String(value);
}

function connectorOf(value: string | undefined): SettingsForm['smallFastConnector'] {
  return SMALL_FAST_CONNECTORS.find((connector) => connector === value) ?? '';
}

export function formOf(settings: OrganizationSettings): SettingsForm {
  return {
    openaiBaseUrl: textOf(settings.providers.openai.base_url),
    openaiKey: keep(),
    anthropicBaseUrl: textOf(settings.providers.anthropic.base_url),
    anthropicKey: keep(),
    geminiBaseUrl: textOf(settings.providers.gemini.base_url),
    geminiKey: keep(),
    ollamaBaseUrl: textOf(settings.providers.ollama.base_url),
    modelsAllowed: (settings.models.allowed ?? []).join('\n'),
    modelsDefault: textOf(settings.models.default),
    smallFastConnector: connectorOf(settings.small_fast_model?.connector),
    smallFastModel: textOf(settings.small_fast_model?.model),
    knowledgeServerUrl: textOf(settings.kb_server.url),
    knowledgeServerKey: keep(),
    moodleUrl: textOf(settings.moodle.api_url),
    moodleToken: keep(),
    webSearchProvider: webSearchProviderOf(settings.web_search.provider),
    webSearchUrl: textOf(settings.web_search.url),
    webSearchKey: keep(),
    learnersCreateApiKeys: settings.learners_create_api_keys,
    chatRetentionDays: textOf(settings.chat_retention_days),
    ownersCanReadChats: settings.owners_can_read_chats,
    ltiInstructorsCreate: settings.lti_instructors_create,
    frontEndCreatesLearners: settings.front_end_creates_learners,
    plugins: {
      tools: { ...settings.plugins.tools },
      connectors: { ...settings.plugins.connectors },
      prompt_processors: { ...settings.plugins.prompt_processors },
    },
    limits: Object.fromEntries(LIMIT_NAMES.map((name) => [name, textOf(settings.limits[name])])) as Record<LimitName, string>,
  };
}

function urlOrNull(text: string): string | null {
  return text.trim() === '' ? null : text.trim();
}

/** A secret's part of a patch: absent to keep it, the new value, or null to clear it. */
function secretOf(change: SecretChange): { value?: string | null } {
  if (change.action === 'replace') return { value: change.value.trim() };
  if (change.action === 'clear') return { value: null };
  return {};
}

function withSecret<Key extends string>(key: Key, change: SecretChange): Partial<Record<Key, string | null>> {
  const secret = secretOf(change);
  return 'value' in secret ? ({ [key]: secret.value } as Partial<Record<Key, string | null>>) : {};
}

function linesOf(text: string): string[] {
  return [
    ...new Set(
      text
        .split('\n')
        .map((line) => line.trim())
        .filter((line) => line !== ''),
    ),
  ];
}

/** A number from a text box: null when empty, NaN when it is not a number. */
function numberOf(text: string): number | null {
  const trimmed = text.trim().replace(/[\s_]/g, '');
  return trimmed === '' ? null : Number(trimmed);
}

const FRACTIONAL_LIMITS = new Set<LimitName>(['cost_per_month_usd', 'storage_gb']);

/** Text boxes holding something that is not a number of the right kind, before anything is sent. */
export function localProblemsOf(form: SettingsForm): LocalProblems {
  const problems: LocalProblems = {};
  const wholeNumber = (path: string, text: string, fractional: boolean): void => {
    const value = numberOf(text);
    if (value === null) return;
    if (!Number.isFinite(value)) problems[path] = 'number';
    else if (!fractional && !Number.isInteger(value)) problems[path] = 'wholeNumber';
  };
  wholeNumber('chat_retention_days', form.chatRetentionDays, false);
  for (const name of LIMIT_NAMES) wholeNumber(`limits.${name}`, form.limits[name], FRACTIONAL_LIMITS.has(name));
  const secrets: Array<[string, SecretChange]> = [
    ['providers.openai.api_key', form.openaiKey],
    ['providers.anthropic.api_key', form.anthropicKey],
    ['providers.gemini.api_key', form.geminiKey],
    ['kb_server.api_key', form.knowledgeServerKey],
    ['moodle.token', form.moodleToken],
    ['web_search.api_key', form.webSearchKey],
  ];
  for (const [path, change] of secrets) if (change.action === 'replace' && change.value.trim() === '') problems[path] = 'secretRequired';
  return problems;
}

/** The whole document as a patch, every secret left out (they are compared apart). */
function fullPatchOf(form: SettingsForm): OrganizationSettingsPatch {
  const allowed = linesOf(form.modelsAllowed);
  return {
    providers: {
      openai: { base_url: urlOrNull(form.openaiBaseUrl) },
      anthropic: { base_url: urlOrNull(form.anthropicBaseUrl) },
      gemini: { base_url: urlOrNull(form.geminiBaseUrl) },
      ollama: { base_url: urlOrNull(form.ollamaBaseUrl) },
    },
    models: { allowed: allowed.length === 0 ? null : allowed, default: urlOrNull(form.modelsDefault) },
    small_fast_model:
      form.smallFastConnector === '' && form.smallFastModel.trim() === ''
        ? null
        : { connector: form.smallFastConnector || 'openai', model: form.smallFastModel.trim() },
    kb_server: { url: urlOrNull(form.knowledgeServerUrl) },
    moodle: { api_url: urlOrNull(form.moodleUrl) },
    web_search: form.webSearchProvider === '' ? null : { provider: form.webSearchProvider, url: urlOrNull(form.webSearchUrl) },
    learners_create_api_keys: form.learnersCreateApiKeys,
    chat_retention_days: numberOf(form.chatRetentionDays),
    owners_can_read_chats: form.ownersCanReadChats,
    lti_instructors_create: form.ltiInstructorsCreate,
    front_end_creates_learners: form.frontEndCreatesLearners,
    plugins: form.plugins,
    limits: Object.fromEntries(LIMIT_NAMES.map((name) => [name, numberOf(form.limits[name])])),
  };
}

function same(left: unknown, right: unknown): boolean {
  return JSON.stringify(left) === JSON.stringify(right);
}

/** Only the plugins whose switch moved, so a save never names the others. */
function changedPlugins(form: SettingsForm, loaded: SettingsForm): OrganizationSettingsPatch['plugins'] | undefined {
  const changed: Partial<Record<PluginKind, Record<string, boolean>>> = {};
  for (const kind of PLUGIN_KINDS) {
    const moved = Object.entries(form.plugins[kind]).filter(([name, enabled]) => loaded.plugins[kind][name] !== enabled);
    if (moved.length > 0) changed[kind] = Object.fromEntries(moved);
  }
  return Object.keys(changed).length === 0 ? undefined : changed;
}

function changedLimits(form: SettingsForm, loaded: SettingsForm): Record<string, number | null> | undefined {
  const moved = LIMIT_NAMES.filter((name) => numberOf(form.limits[name]) !== numberOf(loaded.limits[name]));
  return moved.length === 0 ? undefined : Object.fromEntries(moved.map((name) => [name, numberOf(form.limits[name])]));
}

/** A part of the patch: what changed of it, plus the secret's change; undefined when neither. */
function changedPart(now: object | null | undefined, before: object | null | undefined, secret: object): object | undefined {
  const part = { ...(same(now, before) ? {} : now), ...secret };
  return Object.keys(part).length === 0 ? undefined : part;
}

const PLAIN_FIELDS = [
  'models',
  'small_fast_model',
  'learners_create_api_keys',
  'chat_retention_days',
  'owners_can_read_chats',
  'lti_instructors_create',
  'front_end_creates_learners',
] as const;

/** The fields of the form that differ from the loaded document (and every secret being replaced or cleared). */
export function patchOf(form: SettingsForm, loaded: SettingsForm): OrganizationSettingsPatch {
  const now = fullPatchOf(form);
  const before = fullPatchOf(loaded);
  const patch: Record<string, unknown> = {};
  for (const key of PLAIN_FIELDS) if (!same(now[key], before[key])) patch[key] = now[key];
  const providers = Object.entries({
    openai: changedPart(now.providers?.openai, before.providers?.openai, withSecret('api_key', form.openaiKey)),
    anthropic: changedPart(now.providers?.anthropic, before.providers?.anthropic, withSecret('api_key', form.anthropicKey)),
    gemini: changedPart(now.providers?.gemini, before.providers?.gemini, withSecret('api_key', form.geminiKey)),
    ollama: changedPart(now.providers?.ollama, before.providers?.ollama, {}),
  }).filter(([, part]) => part !== undefined);
  if (providers.length > 0) patch['providers'] = Object.fromEntries(providers);
  const parts = {
    kb_server: changedPart(now.kb_server, before.kb_server, withSecret('api_key', form.knowledgeServerKey)),
    moodle: changedPart(now.moodle, before.moodle, withSecret('token', form.moodleToken)),
    plugins: changedPlugins(form, loaded),
    limits: changedLimits(form, loaded),
  };
  for (const [key, part] of Object.entries(parts)) if (part !== undefined) patch[key] = part;
  // No provider chosen clears the whole setting, key included; otherwise what changed of it, and its key.
  if (now.web_search === null) {
    if (before.web_search !== null) patch['web_search'] = null;
  } else {
    const webSearch = changedPart(now.web_search, before.web_search, withSecret('api_key', form.webSearchKey));
    if (webSearch !== undefined) patch['web_search'] = webSearch;
  }
  return patch;
}
