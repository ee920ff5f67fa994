/** The caller's API keys (with optional expiry; trusted front-end keys for system admins); the key itself is shown once, in the answer to its creation. */
import type { FastifyInstance } from 'fastify';
import type { NewApiKeyInput } from '../../auth/api-key-service.js';
import type { Services } from '../../services.js';
import { callContext } from '../authentication.js';
import { commonErrorResponses, idParametersSchema } from '../schemas.js';

export async function apiKeyRoutes(app: FastifyInstance, services: Services): Promise<void> {
  app.post<{ Body: NewApiKeyInput }>(
    '/api/api-keys',
    {
      schema: {
        tags: ['api-keys'],
        summary: 'Create an API key (the key is in this answer only)',
        body: {
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
        },
        response: commonErrorResponses,
      },
    },
    async (request, reply) => reply.status(201).send(await services.apiKeys.create(callContext(request), request.body)),
  );

  app.get(
    '/api/api-keys',
    { schema: { tags: ['api-keys'], summary: 'List your API keys (never the keys themselves)' } },
    async (request) => ({
      items: await services.apiKeys.list(callContext(request)),
    }),
  );

  app.delete<{ Params: { id: number } }>(
    '/api/api-keys/:id',
    { schema: { tags: ['api-keys'], summary: 'Delete an API key', params: idParametersSchema, response: commonErrorResponses } },
    async (request, reply) => {
      await services.apiKeys.delete(callContext(request), request.params.id);
      return reply.status(204).send();
    },
  );
}
