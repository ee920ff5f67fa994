/**
 * The shape of an assistant's cost quota (`GET/PUT /api/assistants/{id}/quota`, docs/quotas.md):
 * the limit and alert thresholds its owner sets, and this month's spend with each threshold's
 * state, so a page can draw a gauge and the alerts from one answer.
 */
import type { FromSchema } from 'json-schema-to-ts';

/** LAMB's usual alert points, used when a quota is set without naming any. */
export const DEFAULT_ALERT_THRESHOLDS = [50, 80, 100] as const;

export const assistantQuotaInputSchema = {
  type: 'object',
  properties: {
    cost_per_month_usd: {
      type: ['number', 'null'],
      exclusiveMinimum: 0,
      maximum: 1_000_000,
      description: 'The most the assistant may cost in a UTC calendar month, in US dollars; null removes the limit.',
    },
    alert_thresholds: {
      type: 'array',
      items: { type: 'integer', minimum: 1, maximum: 100 },
      minItems: 0,
      maxItems: 10,
      uniqueItems: true,
      description: 'Percents of the limit at which the owner is alerted (default 50, 80, 100).',
    },
  },
  required: ['cost_per_month_usd'],
  additionalProperties: false,
} as const;

export type AssistantQuotaInput = FromSchema<typeof assistantQuotaInputSchema>;

const alertSchema = {
  type: 'object',
  properties: {
    threshold: { type: 'integer', description: 'Percent of the limit.' },
    crossed: { type: 'boolean', description: "Whether this month's spend has reached it." },
    crossed_at: { type: ['string', 'null'], description: 'When Merino first saw it crossed this month (ISO time); null if not crossed.' },
  },
  required: ['threshold', 'crossed', 'crossed_at'],
  additionalProperties: false,
} as const;

export const assistantQuotaSchema = {
  type: 'object',
  description: "The assistant's monthly cost limit with this month's spend and each alert threshold's state",
  properties: {
    assistant_id: { type: 'integer' },
    cost_per_month_usd: { type: ['number', 'null'], description: 'The limit; null when none is set.' },
    alert_thresholds: { type: 'array', items: { type: 'integer' } },
    month: { type: 'string', description: 'The UTC month the spend is for, YYYY-MM.' },
    spent_usd: { type: 'number', description: "This month's cost of the assistant's requests, nested assistant runs included." },
    spent_percent: { type: ['number', 'null'], description: 'spent_usd as a percent of the limit; null without a limit.' },
    exceeded: { type: 'boolean', description: 'The limit is used up: chats with the assistant get 429 quota_exceeded until resets_at.' },
    resets_at: { type: 'string', description: 'When the month ends (ISO time).' },
    alerts: { type: 'array', items: alertSchema, description: 'Each threshold, lowest first.' },
  },
  required: [
    'assistant_id',
    'cost_per_month_usd',
    'alert_thresholds',
    'month',
    'spent_usd',
    'spent_percent',
    'exceeded',
    'resets_at',
    'alerts',
  ],
  additionalProperties: false,
} as const;

export type AssistantQuotaView = FromSchema<typeof assistantQuotaSchema>;
