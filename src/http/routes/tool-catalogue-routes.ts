/**
 * LAMB's catalogue endpoints: the installed tools with their config schemas, config validation
 * for the assistant editor, and `/lamb/v1/completions/list` of processors, connectors and tools.
 */
import type { FastifyInstance } from 'fastify';
import { AppError } from '../../errors/app-error.js';
import { serverFetch } from '../../pipeline/outbound-fetch.js';
import { checkToolConfig } from '../../pipeline/tool-config-validation.js';
import { toolKind, type ToolDefinition } from '../../pipeline/tool-definition.js';
import type { ToolRegistry } from '../../pipeline/registries.js';
import type { Services } from '../../services.js';
import { commonErrorResponses } from '../schemas.js';

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

export async function toolCatalogueRoutes(app: FastifyInstance, services: Services): Promise<void> {
  const registry = services.registries.tools;
  const lookUp = (name: string): ToolDefinition => {
    const definition = registry.get(name);
    if (!definition) throw new AppError('not_found', `No tool is named "${name}".`, { param: 'name' });
    return definition;
  };

  app.get(
    '/lamb/v1/completions/tools',
    { schema: { tags: ['lamb'], summary: 'The installed tools and their config schemas', response: commonErrorResponses } },
    async () => ({
      tools: registry.list().map((definition) => toolEntry(registry, definition)),
    }),
  );

  app.get<{ Params: { name: string } }>(
    '/lamb/v1/completions/tools/:name',
    { schema: { tags: ['lamb'], summary: 'One tool, by name or alias', params: toolNameParameters, response: commonErrorResponses } },
    async (request) => toolEntry(registry, lookUp(request.params.name)),
  );

  app.post<{ Params: { name: string }; Body: { config?: unknown } }>(
    '/lamb/v1/completions/tools/:name/validate',
    {
      schema: {
        tags: ['lamb'],
        summary: "Check a config against the tool's schema; every problem is listed",
        params: toolNameParameters,
        body: { type: 'object', properties: { config: {} }, additionalProperties: false },
        response: commonErrorResponses,
      },
    },
    async (request) => {
      const check = checkToolConfig(lookUp(request.params.name), request.body.config ?? {});
      return { valid: check.valid, errors: check.errors };
    },
  );

  app.get(
    '/lamb/v1/completions/list',
    { schema: { tags: ['lamb'], summary: 'Prompt processors, connectors with their models, and tools', response: commonErrorResponses } },
    async () => {
      const tools = registry.list();
      return {
        prompt_processors: [...services.registries.promptProcessors.keys()].sort(),
        connectors: Object.fromEntries(
          [...services.registries.connectors.values()]
            .sort((a, b) => a.name.localeCompare(b.name))
            .map((connector) => [connector.name, { description: connector.description, models: connector.models({ fetch: serverFetch }) }]),
        ),
        rag_processors: tools.filter((definition) => definition.provide !== undefined).map((definition) => definition.name),
        tools: tools.map((definition) => toolEntry(registry, definition)),
      };
    },
  );
}
