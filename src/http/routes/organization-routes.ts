/**
 * An organization's model-provider settings, its external knowledge-base server, its small fast
 * model and its Moodle Web Services, for its admins; API keys and tokens go in and never come out.
 */
import type { FastifyPluginAsync } from 'fastify';
import { providerSettingsPatchSchema, providerSettingsViewSchema } from '../../organizations/provider-settings-schemas.js';
import type { Services } from '../../services.js';
import { callContext } from '../authentication.js';
import { typedRoutes } from '../route-type-provider.js';
import { commonErrorResponses, idParametersSchema } from '../schemas.js';

/** What the provider-settings routes use: nothing else of the service container reaches them. */
export type OrganizationRouteServices = Pick<Services, 'providerSettings'>;

export const organizationRoutes: FastifyPluginAsync<OrganizationRouteServices> = async (app, services) => {
  const routes = typedRoutes(app);

  routes.get(
    '/api/organizations/:id/providers',
    {
      schema: {
        tags: ['organizations'],
        summary: "The organization's model providers, knowledge-base server, small fast model and Moodle (keys and tokens are never shown)",
        params: idParametersSchema,
        response: { 200: providerSettingsViewSchema("The organization's provider settings"), ...commonErrorResponses },
      },
    },
    async (request) => services.providerSettings.get(callContext(request), request.params.id),
  );

  routes.patch(
    '/api/organizations/:id/providers',
    {
      schema: {
        tags: ['organizations'],
        summary: "Set or clear (null) the organization's provider keys and base URLs, knowledge-base server, small fast model and Moodle",
        params: idParametersSchema,
        body: providerSettingsPatchSchema,
        response: { 200: providerSettingsViewSchema('The provider settings as changed'), ...commonErrorResponses },
      },
    },
    async (request) => services.providerSettings.update(callContext(request), request.params.id, request.body),
  );
};
