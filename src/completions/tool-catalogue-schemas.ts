/**
 * What LAMB's catalogue endpoints answer (/lamb/v1/completions/tools and /list), as JSON Schemas:
 * the installed tools with their config schemas, a config check, and the processors, connectors
 * and tools an assistant may name. Every property listed as required is always sent.
 */
import { openObjectSchema } from '../validation/shape-fragments.js';

/** One installed tool, as toolEntry builds it. */
export const toolEntrySchema = {
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
  required: ['name', 'display_name', 'description', 'placeholder', 'category', 'version', 'kind', 'aliases', 'config_schema'],
} as const;

export const toolListSchema = {
  type: 'object',
  description: 'The installed tools',
  properties: { tools: { type: 'array', items: toolEntrySchema } },
  required: ['tools'],
} as const;

export const configCheckSchema = {
  type: 'object',
  description: 'Whether the config is valid, with every problem',
  properties: {
    valid: { type: 'boolean' },
    errors: {
      type: 'array',
      items: {
        type: 'object',
        properties: { path: { type: 'string' }, message: { type: 'string' } },
        required: ['path', 'message'],
        additionalProperties: true,
      },
    },
  },
  required: ['valid', 'errors'],
} as const;

export const catalogueSchema = {
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
        required: ['description', 'models'],
        additionalProperties: true,
      },
    },
    rag_processors: { type: 'array', items: { type: 'string' }, description: 'the context tools' },
    tools: { type: 'array', items: toolEntrySchema },
  },
  required: ['prompt_processors', 'connectors', 'rag_processors', 'tools'],
} as const;
