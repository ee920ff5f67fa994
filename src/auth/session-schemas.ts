/**
 * How one logs in and what the API says about the session and its user, as JSON Schemas: the
 * login body, the session it answers with, and `GET /api/me` (the user, the credential used, what
 * the permission module lets them do and, for an LTI launch's session, where it came from).
 */
import { timestampSchema } from '../validation/shape-fragments.js';
import { emailSchema, passwordSchema, userViewProperties, userViewRequired, userViewSchema } from './user-schemas.js';

export const loginSchema = {
  type: 'object',
  properties: { email: emailSchema, password: passwordSchema },
  required: ['email', 'password'],
  additionalProperties: false,
} as const;

export const sessionSchema = {
  type: 'object',
  description: 'A session token for the Authorization header, and who it belongs to',
  properties: {
    token: { type: 'string', description: 'the session token (mrs_…)' },
    token_type: { type: 'string', enum: ['Bearer'] },
    expires_at: timestampSchema,
    user: userViewSchema('the user logged in'),
  },
  required: ['token', 'token_type', 'expires_at', 'user'],
} as const;

export const meSchema = {
  type: 'object',
  description: 'The authenticated user, and the kind of credential this request used',
  properties: {
    ...userViewProperties,
    credential: { type: 'string', enum: ['session', 'api_key', 'assistant_owner'] },
    capabilities: {
      type: 'object',
      description: 'what the permission module lets the user do beyond single resources, so pages show only the controls that will work',
      properties: {
        create_assistants: { type: 'boolean', description: 'may create and import assistants' },
        manage_lti: { type: 'boolean', description: "may manage the organization's LTI consumers and platforms (/admin/lti)" },
        administer: {
          type: 'boolean',
          description: 'an organization admin or system admin: manages people, settings and usage and reads the audit log (/admin)',
        },
        manage_organizations: {
          type: 'boolean',
          description: 'a system admin: creates, suspends and deletes organizations (/admin/organizations)',
        },
      },
      required: ['create_assistants', 'manage_lti', 'administer', 'manage_organizations'],
    },
    lti: {
      type: 'object',
      description:
        'present only for a session an LTI launch opened: the activity it opened and where "Back to course" leads (null when the platform gave no return URL)',
      properties: {
        activity_id: { type: 'integer', description: 'the LTI activity (resource link); its dashboard is /lti/activities/{activity_id}' },
        return_url: { type: ['string', 'null'], description: "the platform's launch_presentation_return_url, an http(s) URL" },
        instructor: { type: 'boolean', description: 'whether the launch named the user Instructor' },
      },
      required: ['activity_id', 'return_url', 'instructor'],
    },
  },
  required: [...userViewRequired, 'credential', 'capabilities'],
} as const;
