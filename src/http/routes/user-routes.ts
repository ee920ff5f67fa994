/** User administration, for system admins and organization admins. */
import type { FastifyInstance } from 'fastify';
import type { Services } from '../../services.js';
import type { NewUserInput, PageQuery, UserPatchInput } from '../../auth/user-service.js';
import { callContext } from '../authentication.js';
import { commonErrorResponses, emailSchema, idParametersSchema, pageQuerySchema, passwordSchema, roleSchema } from '../schemas.js';

export async function userRoutes(app: FastifyInstance, services: Services): Promise<void> {
  app.post<{ Body: NewUserInput }>(
    '/api/users',
    {
      schema: {
        tags: ['users'],
        summary: 'Create a user',
        body: {
          type: 'object',
          properties: {
            email: emailSchema,
            password: passwordSchema,
            name: { type: 'string', maxLength: 200 },
            role: roleSchema,
            organization_id: { type: 'integer', minimum: 1 },
            is_system_admin: { type: 'boolean' },
          },
          required: ['email', 'password', 'role'],
          additionalProperties: false,
        },
        response: commonErrorResponses,
      },
    },
    async (request, reply) => reply.status(201).send(await services.users.create(callContext(request), request.body)),
  );

  app.get<{ Querystring: PageQuery }>(
    '/api/users',
    {
      schema: {
        tags: ['users'],
        summary: 'List users',
        querystring: pageQuerySchema(services.settings.pageSizeMaximum),
        response: commonErrorResponses,
      },
    },
    async (request) => services.users.list(callContext(request), request.query),
  );

  app.get<{ Params: { id: number } }>(
    '/api/users/:id',
    { schema: { tags: ['users'], summary: 'Get a user', params: idParametersSchema, response: commonErrorResponses } },
    async (request) => services.users.get(callContext(request), request.params.id),
  );

  app.patch<{ Params: { id: number }; Body: UserPatchInput }>(
    '/api/users/:id',
    {
      schema: {
        tags: ['users'],
        summary: 'Change a user: role, disabled, name, password',
        params: idParametersSchema,
        body: {
          type: 'object',
          properties: {
            name: { type: 'string', maxLength: 200 },
            password: passwordSchema,
            role: roleSchema,
            disabled: { type: 'boolean' },
            is_system_admin: { type: 'boolean' },
          },
          additionalProperties: false,
          minProperties: 1,
        },
        response: commonErrorResponses,
      },
    },
    async (request) => services.users.update(callContext(request), request.params.id, request.body),
  );
}
