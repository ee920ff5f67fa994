/**
 * An LTI activity (resource link) and its dashboard as the API shows them to teachers, as JSON
 * Schemas: the routes serialize answers with them and show them in the OpenAPI document, and
 * lti-activity-service.ts (and the server's own dashboard page) read their types from them, so
 * each shape is declared once.
 */
import type { FromSchema } from 'json-schema-to-ts';
import { timestampSchema } from '../validation/shape-fragments.js';

export const activityViewSchema = {
  type: 'object',
  description: 'An LTI activity (resource link) and the assistant it opens',
  properties: { id: { type: 'integer' }, title: { type: 'string' }, assistant_id: { type: ['integer', 'null'] } },
  required: ['id', 'title', 'assistant_id'],
  additionalProperties: false,
} as const;

export type ActivityView = FromSchema<typeof activityViewSchema>;

export const activityDashboardSchema = {
  type: 'object',
  description: "An LTI activity's learners and usage, for its teachers",
  properties: {
    activity: activityViewSchema,
    learners: {
      type: 'array',
      items: {
        type: 'object',
        properties: { name: { type: 'string' }, launches: { type: 'integer' }, last_visit: timestampSchema },
        required: ['name', 'launches', 'last_visit'],
        additionalProperties: false,
      },
    },
    usage: {
      type: 'object',
      properties: {
        requests: { type: 'integer' },
        prompt_tokens: { type: 'integer' },
        completion_tokens: { type: 'integer' },
        chats: { type: 'integer', description: "chats the activity's learners keep with its assistant" },
        messages: { type: 'integer', description: 'messages in those chats' },
      },
      required: ['requests', 'prompt_tokens', 'completion_tokens', 'chats', 'messages'],
      additionalProperties: false,
    },
  },
  required: ['activity', 'learners', 'usage'],
  additionalProperties: false,
} as const;

export type ActivityDashboard = FromSchema<typeof activityDashboardSchema>;
