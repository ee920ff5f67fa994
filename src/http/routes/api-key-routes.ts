/** The caller's API keys (with optional expiry; trusted front-end keys for system admins); the key itself is shown once, in the answer to its creation. */
import type { FastifyPluginAsync } from 'fastify';
import type { Services } from '../../services.js';
import { apiKeyListSchema, createdApiKeySchema, newApiKeySchema } from '../../auth/api-key-schemas.js';
import { pageBoundsQuerySchema } from '../../validation/page-query-schema.js';
import { callContext } from '../authentication.js';
import { typedRoutes } from '../route-type-provider.js';
import { commonErrorResponses, idParametersSchema, noContentResponse } from '../schemas.js';

/** What the API key routes use: nothing else of the service container reaches them. */
export type ApiKeyRouteServices = Pick<Services, 'apiKeys' | 'settings'>;

export const apiKeyRoutes: FastifyPluginAsync<ApiKeyRouteServices> = async (app, services) => {
  const routes = typedRoutes(app);

  routes.post(
    '/api/api-keys',
    {
      schema: {
        tags: ['api-keys'],
        summary: 'Create an API key (the key is in this answer only)',
        body: newApiKeySchema,
        response: { 201: createdApiKeySchema, ...commonErrorResponses },
      },
    },
    async (request, reply) => reply.status(201).send(await services.apiKeys.create(callContext(request), request.body)),
  );

  routes.get(
    '/api/api-keys',
    {
      schema: {
        tags: ['api-keys'],
        summary: 'List your API keys (never the keys themselves)',
        querystring: pageBoundsQuerySchema(services.settings.pageSizeMaximum),
        response: { 200: apiKeyListSchema, ...commonErrorResponses },
      },
    },
    async (request) => services.apiKeys.list(callContext(request), request.query),
  );

  routes.delete(
    '/api/api-keys/:id',
    {
      schema: {
        tags: ['api-keys'],
        summary: 'Delete an API key',
        params: idParametersSchema,
        response: { 204: noContentResponse('Deleted'), ...commonErrorResponses },
      },
    },
    async (request, reply) => {
      await services.apiKeys.delete(callContext(request), request.params.id);
      return reply.status(204).send();
    },
  );
};
