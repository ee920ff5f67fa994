/**
 * An organization's model-provider settings, its external knowledge-base server, its small fast
 * model and its Moodle Web Services, for its admins; API keys and tokens go in and never come out.
 */
import type { FastifyInstance } from 'fastify';
import { providerSettingsPatchSchema } from '../../organizations/provider-settings-schemas.js';
import type { Services } from '../../services.js';
import { callContext } from '../authentication.js';
import { typedRoutes } from '../route-type-provider.js';
import { commonErrorResponses, idParametersSchema } from '../schemas.js';

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
        body: providerSettingsPatchSchema,
        response: { 200: providerSettingsSchema('The provider settings as changed'), ...commonErrorResponses },
      },
    },
    async (request) => services.providerSettings.update(callContext(request), request.params.id, request.body),
  );
}
