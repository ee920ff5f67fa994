/** The installed plugins with an organization's enabled states, for its admins' settings page. */
import type { FastifyPluginAsync } from 'fastify';
import { pluginCatalogueSchema } from '../../organizations/plugin-catalogue-schemas.js';
import type { Services } from '../../services.js';
import { callContext } from '../authentication.js';
import { typedRoutes } from '../route-type-provider.js';
import { commonErrorResponses, idParametersSchema } from '../schemas.js';

/** What the plugin-catalogue route uses: nothing else of the service container reaches it. */
export type PluginCatalogueRouteServices = Pick<Services, 'pluginCatalogue'>;

export const pluginCatalogueRoutes: FastifyPluginAsync<PluginCatalogueRouteServices> = async (app, services) => {
  const routes = typedRoutes(app);

  routes.get(
    '/api/organizations/:id/plugins',
    {
      schema: {
        tags: ['organizations'],
        summary: 'The installed tools, connectors and prompt processors, described, with whether the organization enables each',
        params: idParametersSchema,
        response: { 200: pluginCatalogueSchema, ...commonErrorResponses },
      },
    },
    async (request) => services.pluginCatalogue.list(callContext(request), request.params.id),
  );
};
