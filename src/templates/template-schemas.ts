/**
 * What the templates API takes and answers, as JSON Schemas (docs/templates.md): a template's
 * fields on create and edit, the fields of "save as template", the list's filters, and a template
 * as a list and a single read show it. The routes validate and describe with them; the service
 * reads its input and view types from them, so each shape is declared once.
 */
import type { FromSchema } from 'json-schema-to-ts';
import { rubricFields } from '../rubrics/rubric-request-schemas.js';
import type { PageQuery } from '../validation/page-query-schema.js';
import { openObjectSchema, timestampSchema } from '../validation/shape-fragments.js';

export const TEMPLATE_KINDS = ['prompt', 'rubric'] as const;
export const TEMPLATE_VISIBILITIES = ['personal', 'organization', 'system'] as const;
export const TEMPLATE_ACTIONS = ['read', 'duplicate', 'update', 'delete'] as const;

/** The bounds of a template's own fields; a prompt's bound is the assistants' (assistant-schemas.ts). */
export const TEMPLATE_LIMITS = {
  nameLength: 200,
  descriptionLength: 2_000,
  tags: 10,
  tagLength: 40,
  promptLength: 200_000,
} as const;

/** A tag: letters, digits, spaces and a few joiners; stored lower-cased and trimmed. */
const tagSchema = {
  type: 'string',
  minLength: 1,
  maxLength: TEMPLATE_LIMITS.tagLength,
  pattern: '^[\\p{L}\\p{N}][\\p{L}\\p{N} ._+#-]*$',
} as const;

/** A BCP-47 language tag such as `en`, `es`, `ca`, `eu` or `pt-BR`. */
const languageSchema = {
  type: ['string', 'null'],
  maxLength: 35,
  pattern: '^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8}){0,3}$',
  description: 'a BCP-47 language tag such as en, es, ca or pt-BR; null when not said',
} as const;

/** The rubric's content as a rubric's create takes it, without its rubricId; checked by LAMB's rules (rubric-document.ts). */
const { rubricId: _rubricId, ...rubricContentFields } = rubricFields;

const rubricContentSchema = {
  type: 'object',
  description: "a rubric's content in LAMB's rubric JSON (title, description, metadata, criteria, scoringType, maxScore), without rubricId",
  properties: rubricContentFields,
  required: ['title', 'criteria', 'scoringType', 'maxScore'],
  additionalProperties: false,
} as const;

/** The fields every template has, as create and edit take them. */
const describingFields = {
  name: { type: 'string', minLength: 1, maxLength: TEMPLATE_LIMITS.nameLength },
  description: { type: 'string', maxLength: TEMPLATE_LIMITS.descriptionLength },
  tags: { type: 'array', maxItems: TEMPLATE_LIMITS.tags, items: tagSchema, description: 'lower-cased; each kept once' },
  language: languageSchema,
  visibility: {
    type: 'string',
    enum: TEMPLATE_VISIBILITIES,
    description:
      'personal (default): yours alone; organization: every creator of your organization; system: every creator (system admins only)',
  },
} as const;

/** The content of a template, by kind: a prompt template's two prompts, or a rubric template's rubric. */
const contentFields = {
  system_prompt: { type: 'string', maxLength: TEMPLATE_LIMITS.promptLength, description: 'prompt templates only' },
  prompt_template: { type: 'string', maxLength: TEMPLATE_LIMITS.promptLength, description: 'prompt templates only' },
  rubric: rubricContentSchema,
} as const;

export const newTemplateSchema = {
  type: 'object',
  properties: {
    kind: { type: 'string', enum: TEMPLATE_KINDS },
    ...describingFields,
    ...contentFields,
  },
  required: ['kind', 'name'],
  additionalProperties: false,
} as const;

export type TemplateInput = FromSchema<typeof newTemplateSchema>;

export const templatePatchSchema = {
  type: 'object',
  // kind is listed so that sending it gets a clear "cannot be changed" instead of "unknown field".
  properties: { ...describingFields, ...contentFields, kind: {} },
  additionalProperties: false,
  minProperties: 1,
} as const;

export type TemplatePatch = FromSchema<typeof templatePatchSchema>;

/** "Save as template": how the new template is described; its content comes from the assistant or rubric. */
export const saveAsTemplateSchema = {
  type: 'object',
  properties: describingFields,
  additionalProperties: false,
} as const;

export type SaveAsTemplateInput = FromSchema<typeof saveAsTemplateSchema>;

/** The filters GET /api/templates adds to a page (q searches name, description and tags). */
export const templateListFilters = {
  kind: { type: 'string', enum: TEMPLATE_KINDS },
  visibility: { type: 'string', enum: TEMPLATE_VISIBILITIES },
  tag: { ...tagSchema, description: 'only templates with this tag (case-insensitive)' },
  language: { ...languageSchema, type: 'string', description: 'only templates in this language' },
} as const;

export type TemplateListInput = PageQuery<typeof templateListFilters>;

const summaryProperties = {
  id: { type: 'integer' },
  kind: { type: 'string', enum: TEMPLATE_KINDS },
  name: { type: 'string' },
  description: { type: 'string' },
  tags: { type: 'array', items: { type: 'string' } },
  language: { type: ['string', 'null'] },
  visibility: { type: 'string', enum: TEMPLATE_VISIBILITIES },
  owner: { type: 'string', description: "the owner's email" },
  organization_id: { type: 'integer' },
  is_mine: { type: 'boolean' },
  allowed_actions: { type: 'array', items: { type: 'string', enum: TEMPLATE_ACTIONS }, description: 'what the caller may do with it' },
  created_at: timestampSchema,
  updated_at: timestampSchema,
} as const;

const summaryRequired = [
  'id',
  'kind',
  'name',
  'description',
  'tags',
  'language',
  'visibility',
  'owner',
  'organization_id',
  'is_mine',
  'allowed_actions',
  'created_at',
  'updated_at',
] as const;

/** A template in a list: everything but its content. */
export const templateSummarySchema = {
  type: 'object',
  description: 'a template, without its content',
  properties: summaryProperties,
  required: summaryRequired,
} as const;

export type TemplateSummaryView = FromSchema<typeof templateSummarySchema>;

/** A whole template: a prompt template has system_prompt and prompt_template, a rubric template has rubric. */
export function templateViewSchema(description: string) {
  return {
    type: 'object',
    description,
    properties: {
      ...summaryProperties,
      system_prompt: { type: 'string', description: 'prompt templates only' },
      prompt_template: { type: 'string', description: 'prompt templates only' },
      rubric: openObjectSchema("rubric templates only: the rubric's content in LAMB's rubric JSON, without rubricId"),
    },
    required: summaryRequired,
  } as const;
}

export type TemplateView = FromSchema<ReturnType<typeof templateViewSchema>>;
