/**
 * Self sign-up's body as a JSON Schema (docs/sign-up.md): the route validates with it, the OpenAPI
 * document shows it, and sign-up-service.ts reads its input type from it. It answers with the
 * session a login gives (session-schemas.ts).
 */
import type { FromSchema } from 'json-schema-to-ts';
import { emailSchema, passwordSchema } from '../user-schemas.js';

export const signUpSchema = {
  type: 'object',
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 200, description: 'the name others see' },
    email: emailSchema,
    password: passwordSchema,
    sign_up_key: {
      type: 'string',
      minLength: 1,
      maxLength: 100,
      description: "the organization's sign-up key, as its admin handed it out; it decides the organization",
    },
  },
  required: ['name', 'email', 'password', 'sign_up_key'],
  additionalProperties: false,
} as const;

export type SignUpInput = FromSchema<typeof signUpSchema>;
