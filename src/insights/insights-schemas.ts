/**
 * An assistant's insights as the API takes and answers them (docs/assistant-insights.md): a range
 * of UTC days, and for it the totals, one row per day for the timeline, the most used sources and
 * the most frequent question topics. Learners are only ever counted, never named. Each shape is
 * declared once, here; insights-service.ts checks that the days are real and the range allowed.
 */
import type { FromSchema } from 'json-schema-to-ts';
import { utcDaySchema } from '../validation/shape-fragments.js';

export const insightsQuerySchema = {
  type: 'object',
  properties: {
    from: { ...utcDaySchema, description: 'First UTC day, YYYY-MM-DD (default: 29 days before `to`).' },
    to: { ...utcDaySchema, description: 'Last UTC day, YYYY-MM-DD, included (default: today).' },
    format: { type: 'string', enum: ['json', 'csv'], description: 'csv answers the timeline as text/csv (as does Accept: text/csv).' },
  },
  additionalProperties: false,
} as const;

export type InsightsQuery = FromSchema<typeof insightsQuerySchema>;

const countersProperties = {
  chats: { type: 'integer', description: 'Chats that got their first answer.' },
  questions: { type: 'integer', description: 'Learner questions answered.' },
  answers: { type: 'integer', description: 'Answers kept (regenerated ones included).' },
  prompt_tokens: { type: 'integer' },
  completion_tokens: { type: 'integer' },
  cost_usd: { type: 'number', description: "Priced with the organization's model prices when each answer was kept." },
  tool_calls: { type: 'integer', description: 'Tool steps the answers ran.' },
  tool_failures: { type: 'integer', description: 'Tool steps that ended in an error.' },
  feedback_up: { type: 'integer', description: 'Answers rated thumb up (counted on the day of the answer).' },
  feedback_down: { type: 'integer', description: 'Answers rated thumb down.' },
  retrieval_questions: { type: 'integer', description: 'Questions for which the knowledge base was searched.' },
  retrieval_empty: { type: 'integer', description: 'Of those, the ones where nothing scored above the threshold.' },
} as const;

const COUNTERS = Object.keys(countersProperties) as (keyof typeof countersProperties)[];

export const insightsDaySchema = {
  type: 'object',
  properties: { day: { type: 'string', description: 'YYYY-MM-DD (UTC)' }, ...countersProperties },
  required: ['day', ...COUNTERS],
  additionalProperties: false,
} as const;

export type InsightsDay = FromSchema<typeof insightsDaySchema>;

const nullableRatio = (description: string) => ({ type: ['number', 'null'], minimum: 0, maximum: 1, description }) as const;
const nullableMilliseconds = (description: string) => ({ type: ['integer', 'null'], description }) as const;

export const insightsTotalsSchema = {
  type: 'object',
  properties: {
    ...countersProperties,
    learners: { type: 'integer', description: 'Different learners who asked (counted, never named).' },
    messages: { type: 'integer', description: 'Questions and answers.' },
    total_tokens: { type: 'integer' },
    feedback_ratio: nullableRatio('Thumbs up over all ratings; null without ratings.'),
    retrieval_empty_share: nullableRatio('Share of knowledge-base searches that found nothing above the threshold; null without searches.'),
    answer_time_median_ms: nullableMilliseconds(
      'Median time to a whole answer, from a histogram (within about 10%); null without answers.',
    ),
    answer_time_p95_ms: nullableMilliseconds('95th percentile of the time to a whole answer, likewise.'),
  },
  required: [
    ...COUNTERS,
    'learners',
    'messages',
    'total_tokens',
    'feedback_ratio',
    'retrieval_empty_share',
    'answer_time_median_ms',
    'answer_time_p95_ms',
  ],
  additionalProperties: false,
} as const;

export const insightsSchema = {
  type: 'object',
  description: "An assistant's use by learners over a range of days: chat answers only, never test runs",
  properties: {
    assistant_id: { type: 'integer' },
    from: { type: 'string' },
    to: { type: 'string' },
    currency: { type: 'string', enum: ['USD'] },
    totals: insightsTotalsSchema,
    days: { type: 'array', description: 'Every day of the range, oldest first, zeros included.', items: insightsDaySchema },
    sources: {
      type: 'array',
      description: 'The sources answers used most (INSIGHTS_SOURCES_MAX), most used first.',
      items: {
        type: 'object',
        properties: { title: { type: 'string' }, answers: { type: 'integer', description: 'Answers that used it.' } },
        required: ['title', 'answers'],
        additionalProperties: false,
      },
    },
    topics: {
      type: 'array',
      description: 'The most frequent terms of learner questions (INSIGHTS_TOPICS_MAX), names left out, most frequent first.',
      items: {
        type: 'object',
        properties: { term: { type: 'string' }, questions: { type: 'integer', description: 'Questions with this term.' } },
        required: ['term', 'questions'],
        additionalProperties: false,
      },
    },
  },
  required: ['assistant_id', 'from', 'to', 'currency', 'totals', 'days', 'sources', 'topics'],
  additionalProperties: false,
} as const;

export type InsightsView = FromSchema<typeof insightsSchema>;
