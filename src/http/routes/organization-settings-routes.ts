/** An organization's member policies (whether learners may create API keys), for its admins and system admins. */
import type { FastifyInstance } from 'fastify';
import type { OrganizationSettingsPatch } from '../../organizations/organization-settings-service.js';
import type { Services } from '../../services.js';
import { callContext } from '../authentication.js';
import { commonErrorResponses, idParametersSchema } from '../schemas.js';

export async function organizationSettingsRoutes(app: FastifyInstance, services: Services): Promise<void> {
  app.get<{ Params: { id: number } }>(
    '/api/organizations/:id/settings',
    {
      schema: {
        tags: ['organizations'],
        summary: "The organization's policies for its members",
        params: idParametersSchema,
        response: commonErrorResponses,
      },
    },
    async (request) => services.organizationSettings.get(callContext(request), request.params.id),
  );

  app.patch<{ Params: { id: number }; Body: OrganizationSettingsPatch }>(
    '/api/organizations/:id/settings',
    {
      schema: {
        tags: ['organizations'],
        summary: "Change the organization's policies for its members",
        params: idParametersSchema,
        body: {
          type: 'object',
          minProperties: 1,
          additionalProperties: false,
          properties: {
            learners_create_api_keys: { type: 'boolean', description: 'Whether learners may create their own API keys (default true).' },
          },
        },
        response: commonErrorResponses,
      },
    },
    async (request) => services.organizationSettings.update(callContext(request), request.params.id, request.body),
  );
}
