/** An organization's member policies (learners' API keys, chat retention, who may read chats), for its admins and system admins. */
import type { FastifyInstance } from 'fastify';
import type { Services } from '../../services.js';
import { callContext } from '../authentication.js';
import { typedRoutes } from '../route-type-provider.js';
import { commonErrorResponses, idParametersSchema } from '../schemas.js';

/** A hundred years: longer is keeping forever, which null says. */
const CHAT_RETENTION_DAYS_MAXIMUM = 36_500;

function organizationSettingsSchema(description: string) {
  return {
    type: 'object',
    description,
    properties: {
      learners_create_api_keys: { type: 'boolean', description: 'whether learners may create their own API keys' },
      chat_retention_days: { type: ['integer', 'null'], description: 'days a chat is kept after its last change; null keeps chats' },
      owners_can_read_chats: { type: 'boolean', description: "whether assistants' owners and admins may read members' chats with them" },
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
            chat_retention_days: {
              anyOf: [{ type: 'integer', minimum: 1, maximum: CHAT_RETENTION_DAYS_MAXIMUM }, { type: 'null' }],
              description:
                'Days a chat is kept after its last change (a periodic purge deletes older ones); null (the default) keeps chats.',
            },
            owners_can_read_chats: {
              type: 'boolean',
              description:
                "Whether an assistant's owner (and the admins over it) may read members' chats with it, learners shown by pseudonym (default false).",
            },
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
