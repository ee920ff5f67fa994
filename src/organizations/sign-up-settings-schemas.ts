/**
 * An organization's self sign-up as its admins set it (docs/sign-up.md), as JSON Schemas: the
 * switch, the allowed email domain and the role new people get, and the view the endpoints answer
 * with. The key itself appears in a view only in the answer that generated it.
 */
import type { FromSchema } from 'json-schema-to-ts';
import { nullableTimestampSchema } from '../validation/shape-fragments.js';

const signUpRoleSchema = {
  type: 'string',
  enum: ['learner', 'creator'],
  description: 'the role people who sign up get',
} as const;

const allowedEmailDomainSchema = {
  type: ['string', 'null'],
  minLength: 3,
  maxLength: 253,
  // Labels and dots only; the service checks the labels' shape without a backtracking pattern.
  pattern: '^[A-Za-z0-9.-]+$',
  description: 'only emails at this domain may sign up (exactly, e.g. `uni.edu`; not its subdomains); null allows any',
} as const;

export const signUpSettingsSchema = {
  type: 'object',
  properties: {
    enabled: { type: 'boolean', description: 'whether people with the key may sign up; turning it on makes a key when there is none' },
    allowed_email_domain: allowedEmailDomainSchema,
    role: signUpRoleSchema,
  },
  required: ['enabled', 'role'],
  additionalProperties: false,
} as const;

export type SignUpSettingsInput = FromSchema<typeof signUpSettingsSchema>;

export function signUpSettingsViewSchema(description: string) {
  return {
    type: 'object',
    description,
    properties: {
      organization_id: { type: 'integer' },
      enabled: { type: 'boolean' },
      allowed_email_domain: { type: ['string', 'null'] },
      role: signUpRoleSchema,
      has_key: { type: 'boolean', description: 'whether a key was made; the key itself is never shown again' },
      key_created_at: nullableTimestampSchema,
      sign_up_key: {
        type: 'string',
        description:
          'the new key, present only in the answer that made it (rotation, or turning sign-up on without a key): hand it out now',
      },
    },
    required: ['organization_id', 'enabled', 'allowed_email_domain', 'role', 'has_key', 'key_created_at'],
  } as const;
}

export type SignUpSettingsView = FromSchema<ReturnType<typeof signUpSettingsViewSchema>>;
