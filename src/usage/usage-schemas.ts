/**
 * The shapes of usage reports and model prices, as JSON Schemas: the routes validate with them and
 * describe their answers in the OpenAPI document, and the services take their types from them,
 * so each shape is declared once. The query schema checks the dates' shape; usage-service.ts
 * checks that they are real days, in order, within USAGE_RANGE_DAYS_MAX.
 */
import type { FromSchema } from 'json-schema-to-ts';
import { idSchema, utcDaySchema } from '../validation/shape-fragments.js';

export const USAGE_GROUPINGS = ['day', 'user', 'assistant', 'model'] as const;

export const usageQuerySchema = {
  type: 'object',
  properties: {
    from: { ...utcDaySchema, description: 'First UTC day, YYYY-MM-DD (default: 29 days before `to`).' },
    to: { ...utcDaySchema, description: 'Last UTC day, YYYY-MM-DD, included (default: today).' },
    group_by: { type: 'string', enum: USAGE_GROUPINGS, description: 'What each row of the report is (default: day).' },
    assistant_id: { ...idSchema, description: 'Only requests to this assistant.' },
    user_id: { ...idSchema, description: "Only this person's requests." },
    organization_id: { ...idSchema, description: 'System administrators: only this organization (others may name only their own).' },
    format: { type: 'string', enum: ['json', 'csv'], description: 'csv answers text/csv (as does Accept: text/csv).' },
  },
  additionalProperties: false,
} as const;

export type UsageQuery = FromSchema<typeof usageQuerySchema>;

const sumsProperties = {
  requests: { type: 'integer', description: 'Model calls counted.' },
  prompt_tokens: { type: 'integer' },
  completion_tokens: { type: 'integer' },
  total_tokens: { type: 'integer' },
  cost_usd: { type: 'number', description: "Priced with the organization's model prices when each call was counted." },
} as const;

const usageSumsSchema = {
  type: 'object',
  properties: sumsProperties,
  required: ['requests', 'prompt_tokens', 'completion_tokens', 'total_tokens', 'cost_usd'],
  additionalProperties: false,
} as const;

const usageGroupSchema = {
  type: 'object',
  properties: {
    key: { type: 'string', description: 'The day, user id, assistant id or model the row sums.' },
    label: { type: ['string', 'null'], description: "The user's or assistant's name where the caller may see it; null otherwise." },
    ...sumsProperties,
  },
  required: ['key', 'label', 'requests', 'prompt_tokens', 'completion_tokens', 'total_tokens', 'cost_usd'],
  additionalProperties: false,
} as const;

export const usageReportSchema = {
  type: 'object',
  properties: {
    from: { type: 'string' },
    to: { type: 'string' },
    group_by: { type: 'string', enum: USAGE_GROUPINGS },
    currency: { type: 'string', enum: ['USD'] },
    groups: { type: 'array', items: usageGroupSchema },
    totals: usageSumsSchema,
    truncated: { type: 'boolean', description: 'True when more groups than USAGE_GROUPS_MAX matched; totals still count them all.' },
  },
  required: ['from', 'to', 'group_by', 'currency', 'groups', 'totals', 'truncated'],
  additionalProperties: false,
} as const;

export type UsageReport = FromSchema<typeof usageReportSchema>;

const priceProperties = {
  model: { type: 'string', minLength: 1, maxLength: 200, pattern: '\\S' },
  input_usd_per_million: { type: 'number', minimum: 0, maximum: 100_000 },
  output_usd_per_million: { type: 'number', minimum: 0, maximum: 100_000 },
} as const;

export const modelPricesInputSchema = {
  type: 'object',
  properties: {
    prices: {
      type: 'array',
      maxItems: 500,
      items: {
        type: 'object',
        properties: priceProperties,
        required: ['model', 'input_usd_per_million', 'output_usd_per_million'],
        additionalProperties: false,
      },
    },
  },
  required: ['prices'],
  additionalProperties: false,
} as const;

export type ModelPricesInput = FromSchema<typeof modelPricesInputSchema>;

export const modelPricesSchema = {
  type: 'object',
  description: "The organization's model prices: its own, then the defaults for the models it did not price",
  properties: {
    currency: { type: 'string', enum: ['USD'] },
    defaults_as_of: {
      type: 'string',
      description: 'The date of the approximate list prices Merino uses where the organization sets none.',
    },
    prices: {
      type: 'array',
      items: {
        type: 'object',
        properties: { ...priceProperties, source: { type: 'string', enum: ['organization', 'default'] } },
        required: ['model', 'input_usd_per_million', 'output_usd_per_million', 'source'],
        additionalProperties: false,
      },
    },
  },
  required: ['currency', 'defaults_as_of', 'prices'],
  additionalProperties: false,
} as const;

export type ModelPricesView = FromSchema<typeof modelPricesSchema>;
