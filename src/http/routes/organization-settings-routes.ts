/** An organization's member policies (whether learners may create API keys), for its admins and system admins. */
import type { FastifyInstance } from 'fastify';
import type { Services } from '../../services.js';
import { callContext } from '../authentication.js';
import { typedRoutes } from '../route-type-provider.js';
import { commonErrorResponses, idParametersSchema } from '../schemas.js';

function organizationSettingsSchema(description: string) {
  return {
    type: 'object',
    description,
    properties: {
      learners_create_api_keys: { type: 'boolean', description: 'whether learners may create their own API keys' },
      lti_instructors_create: { type: 'boolean', description: 'whether users an LTI launch names Instructor become creators' },
    },
  } as const;
}

export async function organizationSettingsRoutes(app: FastifyInstance, services: Services): Promise<void> {
  const routes = typedRoutes(app);

  routes.get(
    '/api/organizations/:id/settings',
    {
      schema: {
        tags: ['organizations'],
        summary: "The organization's policies for its members",
        params: idParametersSchema,
        response: { 200: organizationSettingsSchema("The organization's policies"), ...commonErrorResponses },
      },
    },
    async (request) => services.organizationSettings.get(callContext(request), request.params.id),
  );

  routes.patch(
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
            lti_instructors_create: {
              type: 'boolean',
              description: 'Whether users an LTI launch names Instructor become creators on their first launch (default false: learners).',
            },
          },
        },
        response: { 200: organizationSettingsSchema('The policies as changed'), ...commonErrorResponses },
      },
    },
    async (request) => services.organizationSettings.update(callContext(request), request.params.id, request.body),
  );
}
