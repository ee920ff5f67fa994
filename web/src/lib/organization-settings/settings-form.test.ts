/**
 * Proves the settings form sends only what the admin changed: untouched fields are left out (so
 * the audit log names only real changes), a secret is absent while kept, a new value when
 * replaced and null when cleared, only the plugins whose switch moved are named, an emptied limit
 * is null (no limit), and text that is not a number is caught before anything is sent.
 */
import { describe, expect, it } from 'vitest';
import type { OrganizationSettings } from '$lib/api/organization-settings';
import { formOf, localProblemsOf, patchOf } from './settings-form';

const loaded: OrganizationSettings = {
  learners_create_api_keys: true,
  chat_retention_days: null,
  owners_can_read_chats: false,
  lti_instructors_create: false,
  front_end_creates_learners: false,
  providers: {
    openai: { base_url: 'https://models.example.edu/v1', api_key_set: true },
    anthropic: { base_url: null, api_key_set: false },
    gemini: { base_url: null, api_key_set: true },
    ollama: { base_url: null },
  },
  kb_server: { url: null, api_key_set: false },
  small_fast_model: null,
  moodle: { api_url: 'https://moodle.example.edu/webservice/rest/server.php', token_set: true },
  web_search: { provider: 'brave', url: null, api_key_set: true },
  models: { allowed: null, default: null },
  plugins: { tools: { weather: true, simple_rag: true }, connectors: { openai: true }, prompt_processors: { simple_augment: true } },
  limits: {
    tokens_per_user_per_day: 5000,
    tokens_per_month: null,
    cost_per_month_usd: null,
    max_assistants: null,
    max_assistants_per_user: null,
    storage_gb: null,
  },
};

describe('the settings form', () => {
  it('sends nothing when nothing changed', () => {
    expect(patchOf(formOf(loaded), formOf(loaded))).toEqual({});
  });

  it('sends only the changed fields, secrets only when replaced or cleared', () => {
    const form = formOf(loaded);
    form.ownersCanReadChats = true;
    form.plugins.tools['weather'] = false;
    form.limits.tokens_per_user_per_day = '';
    form.limits.storage_gb = '2.5';
    form.openaiKey = { action: 'replace', value: ' sk-new ' };
    form.moodleToken = { action: 'clear', value: '' };
    form.smallFastConnector = 'ollama';
    form.smallFastModel = 'llama3.2';
    expect(patchOf(form, formOf(loaded))).toEqual({
      owners_can_read_chats: true,
      small_fast_model: { connector: 'ollama', model: 'llama3.2' },
      providers: { openai: { api_key: 'sk-new' } },
      moodle: { token: null },
      plugins: { tools: { weather: false } },
      limits: { tokens_per_user_per_day: null, storage_gb: 2.5 },
    });
  });

  it('sends a changed URL with its part, and an emptied one as null', () => {
    const form = formOf(loaded);
    form.openaiBaseUrl = '';
    form.knowledgeServerUrl = ' https://kb.example.edu ';
    form.modelsAllowed = 'openai/gpt-4o-mini\n\nopenai/gpt-4o-mini\nollama/llama3.2';
    expect(patchOf(form, formOf(loaded))).toEqual({
      providers: { openai: { base_url: null } },
      kb_server: { url: 'https://kb.example.edu' },
      models: { allowed: ['openai/gpt-4o-mini', 'ollama/llama3.2'], default: null },
    });
  });

  it('sends the Anthropic and Gemini providers apart, each key only when replaced or cleared', () => {
    const form = formOf(loaded);
    form.anthropicBaseUrl = ' https://anthropic.example.edu ';
    form.anthropicKey = { action: 'replace', value: 'sk-ant-new' };
    form.geminiKey = { action: 'clear', value: '' };
    form.smallFastConnector = 'ollama';
    form.smallFastModel = 'claude-haiku';
    expect(patchOf(form, formOf(loaded))).toEqual({
      small_fast_model: { connector: 'ollama', model: 'claude-haiku' },
      providers: { anthropic: { base_url: 'https://anthropic.example.edu', api_key: 'sk-ant-new' }, gemini: { api_key: null } },
    });
    form.geminiKey = { action: 'replace', value: ' ' };
    expect(localProblemsOf(form)).toEqual({ 'providers.gemini.api_key': 'secretRequired' });
  });

  it('catches text that is not a number, a fraction where a whole number is asked, and an empty new secret', () => {
    const form = formOf(loaded);
    form.limits.tokens_per_month = 'lots';
    form.limits.max_assistants = '2.5';
    form.limits.cost_per_month_usd = '12.75';
    form.chatRetentionDays = '30';
    form.knowledgeServerKey = { action: 'replace', value: '  ' };
    expect(localProblemsOf(form)).toEqual({
      'limits.tokens_per_month': 'number',
      'limits.max_assistants': 'wholeNumber',
      'kb_server.api_key': 'secretRequired',
    });
  });
});
