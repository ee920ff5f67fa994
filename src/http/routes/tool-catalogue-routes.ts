/**
 * LAMB's catalogue endpoints: the installed tools with their config schemas, config validation
 * for the assistant editor, and `/lamb/v1/completions/list` of processors, connectors and tools.
 */
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import { isPluginEnabled, type DisabledPlugins } from '../../organizations/plugin-policy.js';
import { AppError } from '../../errors/app-error.js';
import { checkToolConfig } from '../../pipeline/plugin-contract/tool-config-validation.js';
import { toolKind, type ToolDefinition } from '../../pipeline/plugin-contract/tool-definition.js';
import type { ToolRegistry } from '../../pipeline/plugin-loading/registries.js';
import type { Services } from '../../services.js';
import { callContext } from '../authentication.js';
import { typedRoutes } from '../route-type-provider.js';
import { commonErrorResponses } from '../schemas.js';
import { catalogueSchema, configCheckSchema, toolEntrySchema, toolListSchema } from '../../completions/tool-catalogue-schemas.js';

function toolEntry(registry: ToolRegistry, definition: ToolDefinition) {
  return {
    name: definition.name,
    display_name: definition.displayName,
    description: definition.description,
    placeholder: definition.placeholder ?? null,
    category: definition.category,
    version: definition.version,
    kind: toolKind(definition),
    aliases: registry.aliasesOf(definition.name),
    config_schema: definition.configSchema,
  };
}

const toolNameParameters = {
  type: 'object',
  required: ['name'],
  properties: { name: { type: 'string', minLength: 1, maxLength: 100 } },
} as const;

/** What the catalogue routes use: nothing else of the service container reaches them. */
export type ToolCatalogueRouteServices = Pick<Services, 'registries' | 'modelLists' | 'organizationControls'>;

export const toolCatalogueRoutes: FastifyPluginAsync<ToolCatalogueRouteServices> = async (app, services) => {
  const routes = typedRoutes(app);
  const registry = services.registries.tools;
  const lookUp = (name: string): ToolDefinition => {
    const definition = registry.get(name);
    if (!definition) throw new AppError('not_found', `No tool is named "${name}".`, { param: 'name' });
    return definition;
  };
  // What the caller's organization has disabled is not offered (plugin-policy.ts).
  const disabledFor = (request: FastifyRequest): Promise<DisabledPlugins> =>
    services.organizationControls.disabledPluginsFor(callContext(request).identity.organizationId);
  const enabledTools = async (request: FastifyRequest): Promise<ToolDefinition[]> => {
    const disabled = await disabledFor(request);
    return registry.list().filter((definition) => isPluginEnabled(disabled, 'tools', definition.name));
  };

  routes.get(
    '/lamb/v1/completions/tools',
    {
      schema: {
        tags: ['lamb'],
        summary: 'The installed tools and their config schemas',
        response: { 200: toolListSchema, ...commonErrorResponses },
      },
    },
    async (request) => ({
      tools: (await enabledTools(request)).map((definition) => toolEntry(registry, definition)),
    }),
  );

  routes.get(
    '/lamb/v1/completions/tools/:name',
    {
      schema: {
        tags: ['lamb'],
        summary: 'One tool, by name or alias',
        params: toolNameParameters,
        response: { 200: toolEntrySchema, ...commonErrorResponses },
      },
    },
    async (request) => toolEntry(registry, lookUp(request.params.name)),
  );

  routes.post(
    '/lamb/v1/completions/tools/:name/validate',
    {
      schema: {
        tags: ['lamb'],
        summary: "Check a config against the tool's schema; every problem is listed",
        params: toolNameParameters,
        body: { type: 'object', properties: { config: {} }, additionalProperties: false },
        response: { 200: configCheckSchema, ...commonErrorResponses },
      },
    },
    async (request) => {
      const check = checkToolConfig(lookUp(request.params.name), request.body.config ?? {});
      return { valid: check.valid, errors: check.errors };
    },
  );

  routes.get(
    '/lamb/v1/completions/list',
    {
      schema: {
        tags: ['lamb'],
        summary: 'Prompt processors, connectors with their models, and tools',
        response: { 200: catalogueSchema, ...commonErrorResponses },
      },
    },
    async (request) => {
      const tools = await enabledTools(request);
      const disabled = await disabledFor(request);
      // What each provider itself lists, as the studio's Model list shows it to this caller (test connectors to system admins only).
      const modelIds = await services.modelLists.modelIdsFor(callContext(request).identity);
      return {
        prompt_processors: [...services.registries.promptProcessors.keys()]
          .filter((name) => isPluginEnabled(disabled, 'prompt_processors', name))
          .sort(),
        connectors: Object.fromEntries(
          [...services.registries.connectors.values()]
            .filter((connector) => modelIds.has(connector.name) && isPluginEnabled(disabled, 'connectors', connector.name))
            .sort((a, b) => a.name.localeCompare(b.name))
            .map((connector) => [
              connector.name,
              { description: connector.description, models: [...(modelIds.get(connector.name) ?? [])] },
            ]),
        ),
        rag_processors: tools.filter((definition) => definition.provide !== undefined).map((definition) => definition.name),
        tools: tools.map((definition) => toolEntry(registry, definition)),
      };
    },
  );
};
