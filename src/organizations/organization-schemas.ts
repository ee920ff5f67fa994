/**
 * Organizations as system admins create, list, change and delete them, as JSON Schemas: the routes
 * validate with them and show them in the OpenAPI document, and organization-service.ts reads its
 * types from them, so each shape is declared once.
 */
import type { FromSchema } from 'json-schema-to-ts';
import { timestampSchema } from '../validation/shape-fragments.js';

/** Lower-case letters, digits and single hyphens between them: safe in URLs and LTI settings. */
export const organizationSlugSchema = {
  type: 'string',
  minLength: 2,
  maxLength: 63,
  pattern: '^[a-z0-9]+(-[a-z0-9]+)*$',
  description: 'lower-case letters, digits and hyphens (not first, last or doubled), 2 to 63 characters; unique',
} as const;

const organizationNameSchema = { type: 'string', minLength: 1, maxLength: 200, pattern: '\\S' } as const;
const organizationStatusSchema = {
  type: 'string',
  enum: ['active', 'suspended'],
  description: "`suspended`: the organization's members cannot log in, chat or use the API",
} as const;

export const newOrganizationSchema = {
  type: 'object',
  properties: { name: organizationNameSchema, slug: organizationSlugSchema },
  required: ['name', 'slug'],
  additionalProperties: false,
} as const;

export type NewOrganizationInput = FromSchema<typeof newOrganizationSchema>;

export const organizationPatchSchema = {
  type: 'object',
  properties: { name: organizationNameSchema, status: organizationStatusSchema },
  additionalProperties: false,
  minProperties: 1,
} as const;

export type OrganizationPatchInput = FromSchema<typeof organizationPatchSchema>;

export function organizationViewSchema(description: string) {
  return {
    type: 'object',
    description,
    properties: {
      id: { type: 'integer' },
      slug: { type: 'string' },
      name: { type: 'string' },
      status: { type: 'string', enum: ['active', 'suspended'] },
      is_system: { type: 'boolean', description: 'the organization made at first start; it cannot be suspended or deleted' },
      created_at: timestampSchema,
      updated_at: timestampSchema,
    },
    required: ['id', 'slug', 'name', 'status', 'is_system', 'created_at', 'updated_at'],
  } as const;
}

export type OrganizationView = FromSchema<ReturnType<typeof organizationViewSchema>>;

/** An organization as the list shows it: with how many people are in it. */
export function organizationListItemSchema(description: string) {
  const view = organizationViewSchema(description);
  return {
    ...view,
    properties: { ...view.properties, member_count: { type: 'integer', description: 'how many user accounts belong to it' } },
    required: [...view.required, 'member_count'],
  } as const;
}

export type OrganizationListItem = FromSchema<ReturnType<typeof organizationListItemSchema>>;
