/** User administration, for system admins and organization admins. */
import type { FastifyPluginAsync } from 'fastify';
import type { Services } from '../../services.js';
import { pageQuerySchema } from '../../validation/page-query-schema.js';
import { callContext } from '../authentication.js';
import { typedRoutes } from '../route-type-provider.js';
import { newUserSchema, userListFilterProperties, userPatchSchema, userViewSchema } from '../../auth/user-schemas.js';
import { commonErrorResponses, idParametersSchema } from '../schemas.js';
import { pageSchema } from '../../validation/shape-fragments.js';

/** What the user routes use: nothing else of the service container reaches them. */
export type UserRouteServices = Pick<Services, 'users' | 'settings'>;

export const userRoutes: FastifyPluginAsync<UserRouteServices> = async (app, services) => {
  const routes = typedRoutes(app);

  routes.post(
    '/api/users',
    {
      schema: {
        tags: ['users'],
        summary: 'Create a user',
        body: newUserSchema,
        response: { 201: userViewSchema('The new user'), ...commonErrorResponses },
      },
    },
    async (request, reply) => reply.status(201).send(await services.users.create(callContext(request), request.body)),
  );

  routes.get(
    '/api/users',
    {
      schema: {
        tags: ['users'],
        summary: 'List users',
        querystring: pageQuerySchema(services.settings.pageSizeMaximum, userListFilterProperties),
        response: { 200: pageSchema('A page of the users you administer', userViewSchema('a user')), ...commonErrorResponses },
      },
    },
    async (request) => services.users.list(callContext(request), request.query),
  );

  routes.get(
    '/api/users/:id',
    {
      schema: {
        tags: ['users'],
        summary: 'Get a user',
        params: idParametersSchema,
        response: { 200: userViewSchema('The user'), ...commonErrorResponses },
      },
    },
    async (request) => services.users.get(callContext(request), request.params.id),
  );

  routes.patch(
    '/api/users/:id',
    {
      schema: {
        tags: ['users'],
        summary: 'Change a user: role, disabled, name, password',
        params: idParametersSchema,
        body: userPatchSchema,
        response: { 200: userViewSchema('The user as changed'), ...commonErrorResponses },
      },
    },
    async (request) => services.users.update(callContext(request), request.params.id, request.body),
  );
};
