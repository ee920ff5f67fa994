/** An organization's model-provider settings, for its admins; API keys go in and never come out. */
import type { FastifyInstance } from 'fastify';
import type { ProviderSettingsPatch } from '../../organizations/provider-settings-service.js';
import type { Services } from '../../services.js';
import { callContext } from '../authentication.js';
import { commonErrorResponses, idParametersSchema } from '../schemas.js';

const baseUrlSchema = { type: ['string', 'null'], maxLength: 2_000, pattern: '^https?://[^\\s]+$' } as const;

export async function organizationRoutes(app: FastifyInstance, services: Services): Promise<void> {
  app.get<{ Params: { id: number } }>(
    '/api/organizations/:id/providers',
    { schema: { tags: ['organizations'], summary: "The organization's model providers (keys are never shown)", params: idParametersSchema, response: commonErrorResponses } },
    async (request) => services.providerSettings.get(callContext(request), request.params.id),
  );

  app.patch<{ Params: { id: number }; Body: ProviderSettingsPatch }>(
    '/api/organizations/:id/providers',
    {
      schema: {
        tags: ['organizations'],
        summary: "Set or clear (null) the organization's provider key and base URLs",
        params: idParametersSchema,
        body: {
          type: 'object',
          required: ['providers'],
          additionalProperties: false,
          properties: {
            providers: {
              type: 'object',
              additionalProperties: false,
              properties: {
                openai: {
                  type: 'object',
                  additionalProperties: false,
                  properties: { api_key: { type: ['string', 'null'], minLength: 1, maxLength: 1_000 }, base_url: baseUrlSchema },
                },
                ollama: { type: 'object', additionalProperties: false, properties: { base_url: baseUrlSchema } },
              },
            },
          },
        },
        response: commonErrorResponses,
      },
    },
    async (request) => services.providerSettings.update(callContext(request), request.params.id, request.body),
  );
}
