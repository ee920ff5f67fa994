/**
 * What an organization's provider settings are changed with and how the API shows them, as JSON
 * Schemas: the route validates the body and serializes the answer with them and shows them in the
 * OpenAPI document, and provider-settings-service.ts reads ProviderSettingsPatch and
 * ProviderSettingsView from them, so each shape is declared once. In the patch, `null` clears a
 * value and an absent field leaves it as it is.
 */
import type { FromSchema } from 'json-schema-to-ts';

/** The web search providers an organization may choose (src/integrations/web-search/). */
export const WEB_SEARCH_PROVIDERS = ['searxng', 'brave', 'tavily'] as const;

/** Connectors a small fast model may run on. */
const SMALL_FAST_MODEL_CONNECTORS = ['openai', 'ollama'] as const;

const baseUrlSchema = { type: ['string', 'null'], maxLength: 2_000, pattern: '^https?://[^\\s]+$' } as const;
// Keys and tokens travel in HTTP headers and URLs: only visible ASCII can, so anything else is
// refused here rather than stored and then failing every chat as an unreachable provider.
const apiKeySchema = { type: ['string', 'null'], minLength: 1, maxLength: 1_000, pattern: '^[\\x21-\\x7E]+$' } as const;

/** A provider reached with a key and a URL (OpenAI-compatible, Anthropic, Gemini). */
const keyedProviderPatchSchema = {
  type: 'object',
  additionalProperties: false,
  properties: { api_key: apiKeySchema, base_url: baseUrlSchema },
} as const;

/** A model as `connector/model` (`openai/gpt-4o-mini`): connector names hold no slash, model names may. */
const modelChoiceSchema = { type: 'string', minLength: 3, maxLength: 300, pattern: '^[a-z0-9_-]{1,100}/\\S' } as const;
/** More models than a provider would serve; the list is a choice from what it serves. */
const ALLOWED_MODELS_MAXIMUM = 500;

export const providerSettingsPatchSchema = {
  type: 'object',
  minProperties: 1,
  additionalProperties: false,
  properties: {
    providers: {
      type: 'object',
      additionalProperties: false,
      properties: {
        openai: keyedProviderPatchSchema,
        anthropic: keyedProviderPatchSchema,
        gemini: keyedProviderPatchSchema,
        ollama: { type: 'object', additionalProperties: false, properties: { base_url: baseUrlSchema } },
      },
    },
    kb_server: {
      type: ['object', 'null'],
      description: "LAMB's external knowledge-base server; null clears its URL and key.",
      additionalProperties: false,
      properties: { url: baseUrlSchema, api_key: apiKeySchema },
    },
    moodle: {
      type: ['object', 'null'],
      description:
        'Moodle Web Services for the Moodle tools: the full REST URL (…/webservice/rest/server.php) and a web-service token; null clears both.',
      additionalProperties: false,
      properties: { api_url: baseUrlSchema, token: apiKeySchema },
    },
    web_search: {
      type: ['object', 'null'],
      description:
        "The web search provider of the `web_search` tool: `searxng` (its instance's `url`), `brave` or `tavily` (an `api_key`; `url` only for another endpoint than the provider's own). Changing the provider forgets the other's URL and key. null clears it.",
      additionalProperties: false,
      properties: {
        provider: { type: 'string', enum: [...WEB_SEARCH_PROVIDERS] },
        url: baseUrlSchema,
        api_key: apiKeySchema,
      },
    },
    models: {
      type: 'object',
      description: "The studio's Model list: which of the providers' models creators may pick, and the one marked as the default.",
      additionalProperties: false,
      properties: {
        allowed: {
          type: ['array', 'null'],
          description: 'Models as `connector/model`; null (the default) allows every model the providers serve.',
          maxItems: ALLOWED_MODELS_MAXIMUM,
          uniqueItems: true,
          items: modelChoiceSchema,
        },
        default: {
          ...modelChoiceSchema,
          type: ['string', 'null'],
          description: 'The model marked as the default, as `connector/model`; null clears it.',
        },
      },
    },
    small_fast_model: {
      type: ['object', 'null'],
      description: 'The model used for quick helper calls such as rewriting retrieval queries; null clears it.',
      additionalProperties: false,
      required: ['connector', 'model'],
      properties: {
        connector: { type: 'string', enum: [...SMALL_FAST_MODEL_CONNECTORS] },
        model: { type: 'string', minLength: 1, maxLength: 200, pattern: '\\S' },
      },
    },
  },
} as const;

export type ProviderSettingsPatch = FromSchema<typeof providerSettingsPatchSchema>;

const nullableUrlSchema = { type: ['string', 'null'] } as const;

/** An object every key of which is always sent, and no other. */
function closedObject<const Properties extends Record<string, unknown>>(properties: Properties) {
  return {
    type: 'object',
    properties,
    required: Object.keys(properties) as Array<keyof Properties & string>,
    additionalProperties: false,
  } as const;
}

const keyedProviderView = closedObject({ base_url: nullableUrlSchema, api_key_set: { type: 'boolean' } });

/** What provider-settings-service.ts shows: URLs, and whether each key or token is set, never the key. */
export function providerSettingsViewSchema(description: string) {
  return {
    ...closedObject({
      providers: closedObject({
        openai: keyedProviderView,
        anthropic: keyedProviderView,
        gemini: keyedProviderView,
        ollama: closedObject({ base_url: nullableUrlSchema }),
      }),
      kb_server: closedObject({ url: nullableUrlSchema, api_key_set: { type: 'boolean' } }),
      small_fast_model: {
        type: ['object', 'null'],
        properties: { connector: { type: 'string' }, model: { type: 'string' } },
        required: ['connector', 'model'],
        additionalProperties: false,
      },
      moodle: closedObject({ api_url: nullableUrlSchema, token_set: { type: 'boolean' } }),
      web_search: closedObject({
        provider: { type: ['string', 'null'], enum: [...WEB_SEARCH_PROVIDERS, null] },
        url: nullableUrlSchema,
        api_key_set: { type: 'boolean' },
      }),
      models: closedObject({
        allowed: { type: ['array', 'null'], items: { type: 'string' } },
        default: { type: ['string', 'null'] },
      }),
    }),
    description,
  } as const;
}

export type ProviderSettingsView = FromSchema<ReturnType<typeof providerSettingsViewSchema>>;
