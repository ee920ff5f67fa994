/**
 * What the studio's Model list answers (GET /api/models), as JSON Schemas: each provider the
 * organization may use, with the models it serves as the provider itself listed them, or why it
 * is unavailable. The route serializes with it, the OpenAPI document shows it, and the model list
 * service reads its types from it, so the shape is declared once.
 */
import type { FromSchema } from 'json-schema-to-ts';
import { MODEL_LIST_FAILURES } from '../pipeline/plugin-contract/model-list-request.js';

/** The list takes no parameters: one that is sent anyway is refused rather than silently ignored. */
export const modelListQuerySchema = { type: 'object', additionalProperties: false, properties: {} } as const;

const listedModelSchema = {
  type: 'object',
  description: 'a model the provider serves',
  properties: {
    id: { type: 'string', description: "the provider's own model id, as the assistant's `llm` names it" },
    choice: { type: 'string', description: '`connector/id`, as the organization names allowed models and its default' },
    allowed: { type: 'boolean', description: "whether the organization's allowed models include it (all are, when it names none)" },
    default: { type: 'boolean', description: "whether it is the organization's default model" },
  },
  required: ['id', 'choice', 'allowed', 'default'],
  additionalProperties: false,
} as const;

const providerModelsSchema = {
  type: 'object',
  description: 'a connector and what its provider serves',
  properties: {
    connector: { type: 'string' },
    description: { type: 'string' },
    testing: { type: 'boolean', description: 'a test connector, answering without a model (bypass)' },
    available: { type: 'boolean', description: 'whether the provider listed its models' },
    reason: {
      type: ['string', 'null'],
      enum: [...MODEL_LIST_FAILURES, null],
      description: 'why the provider is unavailable; null when it is available',
    },
    message: { type: ['string', 'null'], description: 'the reason in plain English words; null when it is available' },
    models: { type: 'array', items: listedModelSchema, description: 'empty when the provider is unavailable' },
  },
  required: ['connector', 'description', 'testing', 'available', 'reason', 'message', 'models'],
  additionalProperties: false,
} as const;

export const modelListSchema = {
  type: 'object',
  description: "The providers the caller's organization may use, each with the models it serves or why it is unavailable",
  properties: {
    providers: { type: 'array', items: providerModelsSchema },
    default_model: { type: ['string', 'null'], description: "the organization's default model as `connector/model`, or null" },
  },
  required: ['providers', 'default_model'],
  additionalProperties: false,
} as const;

export type ModelListView = FromSchema<typeof modelListSchema>;
export type ProviderModelsView = ModelListView['providers'][number];
