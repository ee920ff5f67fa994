/**
 * The plugins installed on the server as an organization's admins pick among them
 * (`GET /api/organizations/{id}/plugins`), as JSON Schemas: each tool, connector and prompt
 * processor with the name stored in settings, a name to show people, what it does, and whether
 * the organization enables it. The settings document says only name → enabled; this gives the
 * admin page the words to label its switches with.
 */
import type { FromSchema } from 'json-schema-to-ts';

const pluginEntrySchema = {
  type: 'object',
  properties: {
    name: { type: 'string', description: 'the name settings and assistants use (`plugins.tools.weather`)' },
    display_name: { type: 'string', description: "a name to show people (a tool's display name; otherwise the name)" },
    description: { type: 'string', description: 'what the plugin does, in its own words' },
    enabled: { type: 'boolean', description: 'whether the organization enables it' },
  },
  required: ['name', 'display_name', 'description', 'enabled'],
  additionalProperties: false,
} as const;

const pluginListSchema = { type: 'array', items: pluginEntrySchema } as const;

export const pluginCatalogueSchema = {
  type: 'object',
  description: 'Every installed plugin of each kind, by name, with whether the organization enables it',
  properties: { tools: pluginListSchema, connectors: pluginListSchema, prompt_processors: pluginListSchema },
  required: ['tools', 'connectors', 'prompt_processors'],
  additionalProperties: false,
} as const;

export type PluginCatalogueView = FromSchema<typeof pluginCatalogueSchema>;
export type PluginCatalogueEntry = FromSchema<typeof pluginEntrySchema>;
