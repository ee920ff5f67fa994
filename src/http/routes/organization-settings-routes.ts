/** An organization's settings in one document (policies, providers, plugins, limits), for its admins and system admins. */
import type { FastifyPluginAsync } from 'fastify';
import { organizationSettingsPatchSchema, organizationSettingsViewSchema } from '../../organizations/organization-settings-schemas.js';
import type { Services } from '../../services.js';
import { callContext } from '../authentication.js';
import { typedRoutes } from '../route-type-provider.js';
import { commonErrorResponses, idParametersSchema } from '../schemas.js';

/** What the organization-settings routes use: nothing else of the service container reaches them. */
export type OrganizationSettingsRouteServices = Pick<Services, 'organizationSettings'>;

export const organizationSettingsRoutes: FastifyPluginAsync<OrganizationSettingsRouteServices> = async (app, services) => {
  const routes = typedRoutes(app);

  routes.get(
    '/api/organizations/:id/settings',
    {
      schema: {
        tags: ['organizations'],
        summary: "The organization's settings: member policies, providers and models, plugins and limits",
        params: idParametersSchema,
        response: { 200: organizationSettingsViewSchema("The organization's policies"), ...commonErrorResponses },
      },
    },
    async (request) => services.organizationSettings.get(callContext(request), request.params.id),
  );

  routes.patch(
    '/api/organizations/:id/settings',
    {
      schema: {
        tags: ['organizations'],
        summary: "Change any part of the organization's settings",
        params: idParametersSchema,
        body: organizationSettingsPatchSchema,
        response: { 200: organizationSettingsViewSchema('The policies as changed'), ...commonErrorResponses },
      },
    },
    async (request) => services.organizationSettings.update(callContext(request), request.params.id, request.body),
  );
};
