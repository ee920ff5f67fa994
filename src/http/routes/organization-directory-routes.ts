/** The organizations of the server, for system admins: create, list, read, rename, suspend, delete when empty. */
import type { FastifyPluginAsync } from 'fastify';
import {
  newOrganizationSchema,
  organizationListItemSchema,
  organizationPatchSchema,
  organizationViewSchema,
} from '../../organizations/organization-schemas.js';
import type { Services } from '../../services.js';
import { pageBoundsQuerySchema } from '../../validation/page-query-schema.js';
import { pageSchema } from '../../validation/shape-fragments.js';
import { callContext } from '../authentication.js';
import { typedRoutes } from '../route-type-provider.js';
import { commonErrorResponses, errorResponseSchema, idParametersSchema, noContentResponse } from '../schemas.js';

/** What the organization routes use: nothing else of the service container reaches them. */
export type OrganizationDirectoryRouteServices = Pick<Services, 'organizations' | 'settings'>;

export const organizationDirectoryRoutes: FastifyPluginAsync<OrganizationDirectoryRouteServices> = async (app, services) => {
  const routes = typedRoutes(app);

  routes.post(
    '/api/organizations',
    {
      schema: {
        tags: ['organizations'],
        summary: 'Create an organization (system admins)',
        body: newOrganizationSchema,
        response: { 201: organizationViewSchema('The new organization'), 409: errorResponseSchema, ...commonErrorResponses },
      },
    },
    async (request, reply) => reply.status(201).send(await services.organizations.create(callContext(request), request.body)),
  );

  routes.get(
    '/api/organizations',
    {
      schema: {
        tags: ['organizations'],
        summary: 'List organizations (system admins)',
        querystring: pageBoundsQuerySchema(services.settings.pageSizeMaximum),
        response: {
          200: pageSchema('A page of the organizations', organizationListItemSchema('an organization')),
          ...commonErrorResponses,
        },
      },
    },
    async (request) => services.organizations.list(callContext(request), request.query),
  );

  routes.get(
    '/api/organizations/:id',
    {
      schema: {
        tags: ['organizations'],
        summary: 'Get an organization (system admins, and its own admins)',
        params: idParametersSchema,
        response: { 200: organizationViewSchema('The organization'), ...commonErrorResponses },
      },
    },
    async (request) => services.organizations.get(callContext(request), request.params.id),
  );

  routes.patch(
    '/api/organizations/:id',
    {
      schema: {
        tags: ['organizations'],
        summary: 'Rename, suspend or reactivate an organization (system admins)',
        params: idParametersSchema,
        body: organizationPatchSchema,
        response: { 200: organizationViewSchema('The organization as changed'), ...commonErrorResponses },
      },
    },
    async (request) => services.organizations.update(callContext(request), request.params.id, request.body),
  );

  routes.delete(
    '/api/organizations/:id',
    {
      schema: {
        tags: ['organizations'],
        summary: 'Delete an empty organization (system admins); 409 organization_not_empty says what is still in it',
        params: idParametersSchema,
        response: { 204: noContentResponse('Deleted'), 409: errorResponseSchema, ...commonErrorResponses },
      },
    },
    async (request, reply) => {
      await services.organizations.delete(callContext(request), request.params.id);
      return reply.status(204).send();
    },
  );
};
