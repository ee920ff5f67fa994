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
    organization_id: { type: 'integer', minimum: 1 },
    is_system_admin: { type: 'boolean' },
  },
  required: ['email', 'password', 'role'],
  additionalProperties: false,
} as const;

export type NewUserInput = FromSchema<typeof newUserSchema>;

export const userPatchSchema = {
  type: 'object',
  properties: {
    name: { type: 'string', maxLength: 200 },
    password: passwordSchema,
    role: roleSchema,
    disabled: { type: 'boolean' },
    is_system_admin: { type: 'boolean' },
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
  'created_at',
  'updated_at',
] as const;

export function userViewSchema(description: string) {
  return { type: 'object', description, properties: userViewProperties, required: userViewRequired } as const;
}

export type UserView = FromSchema<ReturnType<typeof userViewSchema>>;
