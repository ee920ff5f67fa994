/**
 * An organization's model-provider settings, its external knowledge-base server, its small fast
 * model and its Moodle Web Services, for its admins; API keys and tokens go in and never come out.
 */
import type { FastifyInstance } from 'fastify';
import { SMALL_FAST_MODEL_CONNECTORS } from '../../organizations/provider-settings-service.js';
import type { Services } from '../../services.js';
import { callContext } from '../authentication.js';
import { typedRoutes } from '../route-type-provider.js';
import { commonErrorResponses, idParametersSchema } from '../schemas.js';

const baseUrlSchema = { type: ['string', 'null'], maxLength: 2_000, pattern: '^https?://[^\\s]+$' } as const;
// Keys and tokens travel in HTTP headers and URLs: only visible ASCII can, so anything else is
// refused here rather than stored and then failing every chat as an unreachable provider.
const apiKeySchema = { type: ['string', 'null'], minLength: 1, maxLength: 1_000, pattern: '^[\\x21-\\x7E]+$' } as const;

const nullableUrlSchema = { type: ['string', 'null'] } as const;

/** What src/organizations/provider-settings-service.ts shows: URLs, and whether each key or token is set, never the key. */
function providerSettingsSchema(description: string) {
  return {
    type: 'object',
    description,
    properties: {
      providers: {
        type: 'object',
        properties: {
          openai: { type: 'object', properties: { base_url: nullableUrlSchema, api_key_set: { type: 'boolean' } } },
          ollama: { type: 'object', properties: { base_url: nullableUrlSchema } },
        },
      },
      kb_server: { type: 'object', properties: { url: nullableUrlSchema, api_key_set: { type: 'boolean' } } },
      small_fast_model: {
        type: ['object', 'null'],
        properties: { connector: { type: 'string' }, model: { type: 'string' } },
      },
      moodle: { type: 'object', properties: { api_url: nullableUrlSchema, token_set: { type: 'boolean' } } },
    },
  } as const;
}

export async function organizationRoutes(app: FastifyInstance, services: Services): Promise<void> {
  const routes = typedRoutes(app);

  routes.get(
    '/api/organizations/:id/providers',
    {
      schema: {
        tags: ['organizations'],
        summary: "The organization's model providers, knowledge-base server, small fast model and Moodle (keys and tokens are never shown)",
        params: idParametersSchema,
        response: { 200: providerSettingsSchema("The organization's provider settings"), ...commonErrorResponses },
      },
    },
    async (request) => services.providerSettings.get(callContext(request), request.params.id),
  );

  routes.patch(
    '/api/organizations/:id/providers',
    {
      schema: {
        tags: ['organizations'],
        summary: "Set or clear (null) the organization's provider keys and base URLs, knowledge-base server, small fast model and Moodle",
        params: idParametersSchema,
        body: {
          type: 'object',
          minProperties: 1,
          additionalProperties: false,
          properties: {
            providers: {
              type: 'object',
              additionalProperties: false,
              properties: {
                openai: {
                  type: 'object',
                  additionalProperties: false,
                  properties: { api_key: apiKeySchema, base_url: baseUrlSchema },
                },
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
        },
        response: { 200: providerSettingsSchema('The provider settings as changed'), ...commonErrorResponses },
      },
    },
    async (request) => services.providerSettings.update(callContext(request), request.params.id, request.body),
  );
}
