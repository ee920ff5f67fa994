/**
 * The parts of an organization's settings that control what its members may use: which plugins
 * (tools, connectors, prompt processors) are enabled, and its limits. As JSON Schemas, so the
 * settings route validates and serializes them and organization-controls.ts reads its types from
 * them; each shape is declared once.
 */
import type { FromSchema } from 'json-schema-to-ts';

/** The plugin kinds an organization may enable or disable, as the API names them. */
export const PLUGIN_KINDS = ['tools', 'connectors', 'prompt_processors'] as const;
export type PluginKind = (typeof PLUGIN_KINDS)[number];

/** More names than any server installs; a longer map is hostile. */
const PLUGIN_NAMES_MAXIMUM = 200;
/** Tokens beyond this are not a limit anyone means, and stay exact in a double. */
const TOKENS_MAXIMUM = 1_000_000_000_000_000;
const COST_USD_MAXIMUM = 1_000_000_000;
const ASSISTANTS_MAXIMUM = 1_000_000;
/** A petabyte. */
const STORAGE_GB_MAXIMUM = 1_000_000;

const pluginSwitchesSchema = {
  type: 'object',
  description: 'Plugin name → whether it is enabled; names not listed keep their state.',
  maxProperties: PLUGIN_NAMES_MAXIMUM,
  propertyNames: { type: 'string', minLength: 1, maxLength: 100 },
  additionalProperties: { type: 'boolean' },
} as const;

export const pluginsPatchSchema = {
  type: 'object',
  description: 'Which installed tools, connectors and prompt processors the organization enables (all are enabled until disabled).',
  additionalProperties: false,
  properties: { tools: pluginSwitchesSchema, connectors: pluginSwitchesSchema, prompt_processors: pluginSwitchesSchema },
} as const;

export type PluginsPatch = FromSchema<typeof pluginsPatchSchema>;

function limitSchema<const Type extends 'integer' | 'number'>(type: Type, maximum: number, description: string) {
  return { anyOf: [{ type, minimum: 0, maximum }, { type: 'null' }], description: `${description}; null means no limit.` } as const;
}

export const limitsPatchSchema = {
  type: 'object',
  description: "The organization's limits; a number sets one, null removes it, an absent field leaves it.",
  additionalProperties: false,
  properties: {
    tokens_per_user_per_day: limitSchema('integer', TOKENS_MAXIMUM, 'Prompt and completion tokens one member may use a day'),
    tokens_per_month: limitSchema('integer', TOKENS_MAXIMUM, 'Tokens the whole organization may use a calendar month'),
    cost_per_month_usd: limitSchema('number', COST_USD_MAXIMUM, 'US dollars the organization may spend on models a calendar month'),
    max_assistants: limitSchema('integer', ASSISTANTS_MAXIMUM, 'Assistants the organization may have (deleted ones do not count)'),
    max_assistants_per_user: limitSchema('integer', ASSISTANTS_MAXIMUM, 'Assistants one member may own'),
    storage_gb: limitSchema('number', STORAGE_GB_MAXIMUM, "Gigabytes (10^9 bytes) of the members' files and knowledge-base documents"),
  },
} as const;

export type LimitsPatch = FromSchema<typeof limitsPatchSchema>;

/** Every limit's name, as the API and the messages of refusals name it. */
export type LimitName = keyof LimitsPatch;

const pluginStatesSchema = {
  type: 'object',
  description: 'Every installed plugin of the kind → whether the organization enables it.',
  additionalProperties: { type: 'boolean' },
} as const;

export const pluginsViewSchema = {
  type: 'object',
  properties: { tools: pluginStatesSchema, connectors: pluginStatesSchema, prompt_processors: pluginStatesSchema },
  required: ['tools', 'connectors', 'prompt_processors'],
  additionalProperties: false,
} as const;

export type PluginsView = FromSchema<typeof pluginsViewSchema>;

const limitViewSchema = { type: ['number', 'null'] } as const;

export const limitsViewSchema = {
  type: 'object',
  properties: {
    tokens_per_user_per_day: limitViewSchema,
    tokens_per_month: limitViewSchema,
    cost_per_month_usd: limitViewSchema,
    max_assistants: limitViewSchema,
    max_assistants_per_user: limitViewSchema,
    storage_gb: limitViewSchema,
  },
  required: [
    'tokens_per_user_per_day',
    'tokens_per_month',
    'cost_per_month_usd',
    'max_assistants',
    'max_assistants_per_user',
    'storage_gb',
  ],
  additionalProperties: false,
} as const;

export type LimitsView = FromSchema<typeof limitsViewSchema>;
