/**
 * The audit log as GET /api/audit reads it, as JSON Schemas: the route validates its query and
 * describes its answer with them, and audit-log-service.ts takes its types from them, so each shape
 * is declared once. The query checks only the dates' shape; the service checks they are real days.
 */
import type { FromSchema } from 'json-schema-to-ts';
import { pageBoundsQuerySchema } from '../validation/page-query-schema.js';
import { idSchema, openObjectSchema, timestampSchema, utcDaySchema } from '../validation/shape-fragments.js';

function auditFilterProperties() {
  return {
    action: {
      type: 'string',
      maxLength: 100,
      pattern: '^[a-z][a-z0-9_]*(\\.[a-z0-9_]+)*$',
      description: '`user.create` for that action only, `user` for every `user.…` action',
    },
    actor_user_id: { ...idSchema, description: 'only what this user did' },
    actor: { type: 'string', minLength: 1, maxLength: 200, description: "part of the acting user's name or email" },
    target_type: {
      type: 'string',
      maxLength: 50,
      pattern: '^[a-z][a-z0-9_]*$',
      description: 'what was acted on: `user`, `organization`, …',
    },
    target_id: { type: 'string', minLength: 1, maxLength: 100, description: 'the id of what was acted on (with or without target_type)' },
    from: { ...utcDaySchema, description: 'first UTC day, YYYY-MM-DD, included' },
    to: { ...utcDaySchema, description: 'last UTC day, YYYY-MM-DD, included' },
    organization_id: { ...idSchema, description: 'system administrators: only this organization (others may name only their own)' },
  } as const;
}

export function auditQuerySchema(pageSizeMaximum: number) {
  return pageBoundsQuerySchema(pageSizeMaximum, auditFilterProperties());
}

export type AuditQuery = FromSchema<ReturnType<typeof auditQuerySchema>>;

export const auditEntryViewSchema = {
  type: 'object',
  description: 'an audit entry: who did what to which object, when; identifiers only, never secrets or learners’ text',
  properties: {
    id: { type: 'integer' },
    created_at: timestampSchema,
    action: { type: 'string', description: 'such as `user.create`, `organization.update`, `auth.login_failed`' },
    organization_id: { type: ['integer', 'null'], description: 'the organization it was recorded for; null for what belongs to none' },
    actor_user_id: { type: ['integer', 'null'], description: 'who did it; null when nobody was signed in (a refused login, a sign-up)' },
    actor_name: { type: ['string', 'null'], description: "the acting user's name, null when there is none or the account is gone" },
    actor_email: { type: ['string', 'null'] },
    target_type: { type: 'string' },
    target_id: { type: ['string', 'null'] },
    details: openObjectSchema('safe facts about the change: the fields changed, a role, a reason; never a secret or a text anyone wrote'),
    request_id: { type: ['string', 'null'], description: 'the request that made the change, to find it in the server log' },
  },
  required: [
    'id',
    'created_at',
    'action',
    'organization_id',
    'actor_user_id',
    'actor_name',
    'actor_email',
    'target_type',
    'target_id',
    'details',
    'request_id',
  ],
} as const;

export type AuditEntryView = FromSchema<typeof auditEntryViewSchema>;
