/** The caller's API keys; the key itself is shown once, in the answer to its creation. */
import type { FastifyInstance } from 'fastify';
import type { Services } from '../../services.js';
import { callContext } from '../authentication.js';
import { commonErrorResponses, idParametersSchema } from '../schemas.js';

export async function apiKeyRoutes(app: FastifyInstance, services: Services): Promise<void> {
  app.post<{ Body: { name: string } }>(
    '/api/api-keys',
    {
      schema: {
        tags: ['api-keys'],
        summary: 'Create an API key (the key is in this answer only)',
        body: {
          type: 'object',
          properties: { name: { type: 'string', minLength: 1, maxLength: 200, pattern: '\\S' } },
          required: ['name'],
          additionalProperties: false,
        },
        response: commonErrorResponses,
      },
    },
    async (request, reply) => reply.status(201).send(await services.apiKeys.create(callContext(request), request.body.name)),
  );

  app.get('/api/api-keys', { schema: { tags: ['api-keys'], summary: 'List your API keys (never the keys themselves)' } }, async (request) => ({
    items: await services.apiKeys.list(callContext(request)),
  }));

  app.delete<{ Params: { id: number } }>(
    '/api/api-keys/:id',
    { schema: { tags: ['api-keys'], summary: 'Delete an API key', params: idParametersSchema, response: commonErrorResponses } },
    async (request, reply) => {
      await services.apiKeys.delete(callContext(request), request.params.id);
      return reply.status(204).send();
    },
  );
}
