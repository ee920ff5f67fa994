/**
 * What an API key is created from, as a JSON Schema: the route validates the body with it and
 * shows it in the OpenAPI document, and api-key-service.ts reads NewApiKeyInput from it, so the
 * shape is declared once. The schema checks only the expiry's length; the service checks that it
 * is a real, future date and time with a zone.
 */
import type { FromSchema } from 'json-schema-to-ts';

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
