/**
 * What an API key is created from and how the API shows one, as JSON Schemas: the routes validate
 * the body and describe their answers with them in the OpenAPI document, and api-key-service.ts
 * reads NewApiKeyInput and ApiKeyView from them, so each shape is declared once. The schema
 * checks only the expiry's length; the service checks that it is a real, future date and time
 * with a zone.
 */
import type { FromSchema } from 'json-schema-to-ts';
import { nullableTimestampSchema, pageSchema, timestampSchema } from '../validation/shape-fragments.js';

export const newApiKeySchema = {
  type: 'object',
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 200, pattern: '\\S' },
    expires_at: {
      type: 'string',
      maxLength: 40,
      description:
        'When the key stops working: a future date and time with a zone, e.g. 2027-01-31T23:59:59Z. Without it the key works until deleted.',
    },
    trusted_front_end: {
      type: 'boolean',
      description:
        'System administrators only: the key of a front end (Open WebUI) whose X-OpenWebUI-User-Email header is believed when TRUST_FORWARDED_USER_HEADERS is on.',
    },
    source_links: {
      type: 'boolean',
      description:
        'Trusted front-end keys only: end each answer with a markdown "Sources" block of signed links to the cited passages, for front ends that drop the `sources` field (Open WebUI).',
    },
    user_id: {
      type: 'integer',
      minimum: 1,
      maximum: 2_147_483_647,
      description: "System administrators only: create the key for this user (a front end's service account).",
    },
  },
  required: ['name'],
  additionalProperties: false,
} as const;

export type NewApiKeyInput = FromSchema<typeof newApiKeySchema>;

/** An API key as api-key-service.ts shows it: never the key itself, only its first characters. */
const apiKeyViewProperties = {
  id: { type: 'integer' },
  name: { type: 'string' },
  prefix: { type: 'string', description: 'the first characters of the key, to tell keys apart' },
  created_at: timestampSchema,
  last_used_at: nullableTimestampSchema,
  expires_at: { ...nullableTimestampSchema, description: 'when the key stops working; null: never' },
  trusted_front_end: { type: 'boolean' },
  source_links: { type: 'boolean', description: 'whether answers end with a markdown "Sources" block of signed links' },
} as const;

const apiKeyViewRequired = [
  'id',
  'name',
  'prefix',
  'created_at',
  'last_used_at',
  'expires_at',
  'trusted_front_end',
  'source_links',
] as const;

export const apiKeyViewSchema = {
  type: 'object',
  description: 'an API key',
  properties: apiKeyViewProperties,
  required: apiKeyViewRequired,
} as const;

export type ApiKeyView = FromSchema<typeof apiKeyViewSchema>;

export const createdApiKeySchema = {
  type: 'object',
  description: 'The new key: `key` is shown here and never again',
  properties: { ...apiKeyViewProperties, key: { type: 'string', description: 'the API key (mrk_…)' } },
  required: [...apiKeyViewRequired, 'key'],
} as const;

export const apiKeyListSchema = pageSchema('A page of your API keys, oldest first', apiKeyViewSchema);
