/**
 * What a user account is made and changed from, as JSON Schemas: the routes validate bodies with
 * them and show them in the OpenAPI document, and user-service.ts reads its input types from them,
 * so the shape of a new user or a change is declared once.
 */
import type { FromSchema } from 'json-schema-to-ts';
import { timestampSchema } from '../validation/shape-fragments.js';

export const emailSchema = { type: 'string', minLength: 3, maxLength: 320, pattern: '^[^\\s@]+@[^\\s@]+$' } as const;
export const passwordSchema = { type: 'string', minLength: 1, maxLength: 1024 } as const;
const roleSchema = { type: 'string', enum: ['admin', 'creator', 'learner'] } as const;

export const newUserSchema = {
  type: 'object',
  properties: {
    email: emailSchema,
    password: passwordSchema,
    name: { type: 'string', maxLength: 200 },
    role: roleSchema,
    organization_id: {
      type: 'integer',
      minimum: 1,
      maximum: 2_147_483_647,
      description: "the user's organization: any for system admins, only their own for organization admins; the caller's by default",
    },
    is_system_admin: { type: 'boolean' },
  },
  required: ['email', 'password', 'role'],
  additionalProperties: false,
} as const;

export type NewUserInput = FromSchema<typeof newUserSchema>;

/** The filters of the user list (GET /api/users), beside its page and `q` (part of a name or email). */
export const userListFilterProperties = {
  role: { ...roleSchema, description: 'only people with this role' },
  status: { type: 'string', enum: ['active', 'disabled'], description: 'only active or only disabled accounts' },
  organization_id: {
    type: 'integer',
    minimum: 1,
    maximum: 2_147_483_647,
    description: 'system admins: only this organization (organization admins may name only their own)',
  },
} as const;

export const userPatchSchema = {
  type: 'object',
  properties: {
    name: { type: 'string', maxLength: 200 },
    password: passwordSchema,
    role: roleSchema,
    disabled: { type: 'boolean' },
    is_system_admin: { type: 'boolean' },
    organization_id: {
      type: 'integer',
      minimum: 1,
      maximum: 2_147_483_647,
      description:
        'system admins: move the user (and what they own) to this organization; their role stays unless `role` is given (docs/organizations.md)',
    },
  },
  additionalProperties: false,
  minProperties: 1,
} as const;

export type UserPatchInput = FromSchema<typeof userPatchSchema>;

/** A user as the API shows one (src/auth/user-view.ts): never the password hash. */
export const userViewProperties = {
  id: { type: 'integer' },
  email: { type: 'string' },
  name: { type: 'string' },
  organization_id: { type: 'integer' },
  role: { type: 'string' },
  is_system_admin: { type: 'boolean' },
  disabled: { type: 'boolean' },
  must_change_credentials: {
    type: 'boolean',
    description: 'true while the user holds a one-time password: every call but POST /api/auth/password is refused until they choose one',
  },
  created_at: timestampSchema,
  updated_at: timestampSchema,
} as const;

/** Every property of the user view: user-view.ts always sends them all. */
export const userViewRequired = [
  'id',
  'email',
  'name',
  'organization_id',
  'role',
  'is_system_admin',
  'disabled',
  'must_change_credentials',
  'created_at',
  'updated_at',
] as const;

export function userViewSchema(description: string) {
  return { type: 'object', description, properties: userViewProperties, required: userViewRequired } as const;
}

export type UserView = FromSchema<ReturnType<typeof userViewSchema>>;

export const passwordResetViewSchema = {
  type: 'object',
  description: 'The one-time password, shown this once; its holder must choose a new password at their next login',
  properties: { one_time_password: { type: 'string' }, user: userViewSchema('the user, with must_change_credentials set') },
  required: ['one_time_password', 'user'],
} as const;

export type PasswordResetView = FromSchema<typeof passwordResetViewSchema>;

export const passwordChangeSchema = {
  type: 'object',
  properties: { current_password: passwordSchema, new_password: passwordSchema },
  required: ['current_password', 'new_password'],
  additionalProperties: false,
} as const;

export type PasswordChangeInput = FromSchema<typeof passwordChangeSchema>;
