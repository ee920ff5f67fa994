/**
 * LAMB's catalogue endpoints: the installed tools with their config schemas, config validation
 * for the assistant editor, and `/lamb/v1/completions/list` of processors, connectors and tools.
 */
import type { FastifyInstance } from 'fastify';
import { AppError } from '../../errors/app-error.js';
import { checkToolConfig } from '../../pipeline/plugin-contract/tool-config-validation.js';
import { toolKind, type ToolDefinition } from '../../pipeline/plugin-contract/tool-definition.js';
import type { ToolRegistry } from '../../pipeline/plugin-loading/registries.js';
import type { Services } from '../../services.js';
import { typedRoutes } from '../route-type-provider.js';
import { commonErrorResponses } from '../schemas.js';
import { openObjectSchema } from '../../validation/shape-fragments.js';

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

/** One installed tool, as toolEntry builds it. */
const toolEntrySchema = {
  type: 'object',
  description: 'an installed tool',
  properties: {
    name: { type: 'string' },
    display_name: { type: 'string' },
    description: { type: 'string' },
    placeholder: { type: ['string', 'null'], description: 'the placeholder a context tool fills; null for a function tool' },
    category: { type: 'string' },
    version: { type: 'string' },
    kind: { type: 'string', enum: ['context', 'function', 'context+function'] },
    aliases: { type: 'array', items: { type: 'string' } },
    config_schema: openObjectSchema("the JSON Schema of the tool's per-assistant config"),
  },
} as const;

const toolListSchema = {
  type: 'object',
  description: 'The installed tools',
  properties: { tools: { type: 'array', items: toolEntrySchema } },
} as const;

const configCheckSchema = {
  type: 'object',
  description: 'Whether the config is valid, with every problem',
  properties: {
    valid: { type: 'boolean' },
    errors: {
      type: 'array',
      items: { type: 'object', properties: { path: { type: 'string' }, message: { type: 'string' } }, additionalProperties: true },
    },
  },
} as const;

const catalogueSchema = {
  type: 'object',
  description: 'Prompt processors, connectors with their models, and tools',
  properties: {
    prompt_processors: { type: 'array', items: { type: 'string' } },
    connectors: {
      type: 'object',
      description: 'each connector by name: its description and models',
      additionalProperties: {
        type: 'object',
        properties: { description: { type: 'string' }, models: { type: 'array', items: { type: 'string' } } },
        additionalProperties: true,
      },
    },
    rag_processors: { type: 'array', items: { type: 'string' }, description: 'the context tools' },
    tools: { type: 'array', items: toolEntrySchema },
  },
} as const;

export async function toolCatalogueRoutes(app: FastifyInstance, services: Services): Promise<void> {
  const routes = typedRoutes(app);
  const registry = services.registries.tools;
  const lookUp = (name: string): ToolDefinition => {
    const definition = registry.get(name);
    if (!definition) throw new AppError('not_found', `No tool is named "${name}".`, { param: 'name' });
    return definition;
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
    async () => ({
      tools: registry.list().map((definition) => toolEntry(registry, definition)),
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
    async () => {
      const tools = registry.list();
      return {
        prompt_processors: [...services.registries.promptProcessors.keys()].sort(),
        connectors: Object.fromEntries(
          [...services.registries.connectors.values()]
            .sort((a, b) => a.name.localeCompare(b.name))
            .map((connector) => [
              connector.name,
              { description: connector.description, models: connector.models(services.providerSettings.serverProviderFor(connector.name)) },
            ]),
        ),
        rag_processors: tools.filter((definition) => definition.provide !== undefined).map((definition) => definition.name),
        tools: tools.map((definition) => toolEntry(registry, definition)),
      };
    },
  );
}
