/**
 * An organization's settings in one document, as JSON Schemas: its policies for its members
 * (learners' API keys, chat retention, who may read chats, LTI instructors), its providers and
 * models, small fast model, knowledge-base server and Moodle (the `/providers` part,
 * provider-settings-schemas.ts), the plugins it enables and its limits
 * (organization-controls-schemas.ts). The route validates the body and serializes the answer with
 * them, and organization-settings-service.ts reads its view and patch types from them, so each
 * shape is declared once.
 */
import type { FromSchema } from 'json-schema-to-ts';
import { limitsPatchSchema, limitsViewSchema, pluginsPatchSchema, pluginsViewSchema } from './organization-controls-schemas.js';
import { providerSettingsPatchSchema, providerSettingsViewSchema } from './provider-settings-schemas.js';

/** A hundred years: longer is keeping forever, which null says. */
const CHAT_RETENTION_DAYS_MAXIMUM = 36_500;

export function organizationSettingsViewSchema(description: string) {
  const providers = providerSettingsViewSchema(description);
  return {
    type: 'object',
    description,
    properties: {
      learners_create_api_keys: { type: 'boolean', description: 'whether learners may create their own API keys' },
      chat_retention_days: { type: ['integer', 'null'], description: 'days a chat is kept after its last change; null keeps chats' },
      owners_can_read_chats: { type: 'boolean', description: "whether assistants' owners and admins may read members' chats with them" },
      lti_instructors_create: { type: 'boolean', description: 'whether users an LTI launch names Instructor become creators' },
      front_end_creates_learners: {
        type: 'boolean',
        description: 'whether a trusted front end (Open WebUI) creates a learner for an email nobody has',
      },
      ...providers.properties,
      plugins: pluginsViewSchema,
      limits: limitsViewSchema,
    },
    required: [
      'learners_create_api_keys',
      'chat_retention_days',
      'owners_can_read_chats',
      'lti_instructors_create',
      'front_end_creates_learners',
      ...providers.required,
      'plugins',
      'limits',
    ],
    additionalProperties: false,
  } as const;
}

export type OrganizationSettingsView = FromSchema<ReturnType<typeof organizationSettingsViewSchema>>;

export const organizationSettingsPatchSchema = {
  type: 'object',
  minProperties: 1,
  additionalProperties: false,
  properties: {
    learners_create_api_keys: { type: 'boolean', description: 'Whether learners may create their own API keys (default true).' },
    chat_retention_days: {
      anyOf: [{ type: 'integer', minimum: 1, maximum: CHAT_RETENTION_DAYS_MAXIMUM }, { type: 'null' }],
      description: 'Days a chat is kept after its last change (a periodic purge deletes older ones); null (the default) keeps chats.',
    },
    owners_can_read_chats: {
      type: 'boolean',
      description:
        "Whether an assistant's owner (and the admins over it) may read members' chats with it, learners shown by pseudonym (default false).",
    },
    lti_instructors_create: {
      type: 'boolean',
      description: 'Whether users an LTI launch names Instructor become creators on their first launch (default false: learners).',
    },
    front_end_creates_learners: {
      type: 'boolean',
      description:
        'Whether a trusted front end (Open WebUI) that names an email nobody has creates a learner of this organization for it (default false: refused with 403 forwarded_user_unknown).',
    },
    ...providerSettingsPatchSchema.properties,
    plugins: pluginsPatchSchema,
    limits: limitsPatchSchema,
  },
} as const;

export type OrganizationSettingsPatch = FromSchema<typeof organizationSettingsPatchSchema>;
