/** The caller's API keys (with optional expiry; trusted front-end keys for system admins); the key itself is shown once, in the answer to its creation. */
import type { FastifyInstance } from 'fastify';
import type { Services } from '../../services.js';
import { newApiKeySchema } from '../../auth/api-key-schemas.js';
import { pageBoundsQuerySchema } from '../../validation/page-query-schema.js';
import { callContext } from '../authentication.js';
import { typedRoutes } from '../route-type-provider.js';
import { commonErrorResponses, idParametersSchema, noContentResponse } from '../schemas.js';
import { nullableTimestampSchema, pageSchema, timestampSchema } from '../../validation/shape-fragments.js';

/** An API key as src/auth/api-key-service.ts shows it: never the key itself, only its first characters. */
const apiKeyViewProperties = {
  id: { type: 'integer' },
  name: { type: 'string' },
  prefix: { type: 'string', description: 'the first characters of the key, to tell keys apart' },
  created_at: timestampSchema,
  last_used_at: nullableTimestampSchema,
  expires_at: { ...nullableTimestampSchema, description: 'when the key stops working; null: never' },
  trusted_front_end: { type: 'boolean' },
} as const;

const createdApiKeySchema = {
  type: 'object',
  description: 'The new key: `key` is shown here and never again',
  properties: { ...apiKeyViewProperties, key: { type: 'string', description: 'the API key (mrk_…)' } },
} as const;

const apiKeyListSchema = pageSchema('A page of your API keys, oldest first', { type: 'object', properties: apiKeyViewProperties } as const);

export async function apiKeyRoutes(app: FastifyInstance, services: Services): Promise<void> {
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
}
