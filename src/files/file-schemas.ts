/**
 * A stored file as the files API answers with it, as a JSON Schema: the routes serialize with it
 * and show it in the OpenAPI document, and file-service.ts builds its views to the type derived
 * from it, so the shape is declared once.
 */
import type { FromSchema } from 'json-schema-to-ts';
import { timestampSchema } from '../validation/shape-fragments.js';

export const fileViewSchema = {
  type: 'object',
  description: 'A stored file',
  properties: {
    id: { type: 'integer' },
    file_path: { type: 'string', description: '`<owner id>/<file name>`: how the single-file tool names this file' },
    name: { type: 'string', description: 'the file name as uploaded' },
    content_type: { type: 'string' },
    size_bytes: { type: 'integer' },
    created_at: timestampSchema,
  },
  required: ['id', 'file_path', 'name', 'content_type', 'size_bytes', 'created_at'],
  additionalProperties: false,
} as const;

export type FileView = FromSchema<typeof fileViewSchema>;

/** `GET /api/files/{id}/usage`: the assistants whose single-file tools name the file. */
export const fileUsageSchema = {
  type: 'object',
  description: 'The assistants whose single-file tools name this file',
  properties: {
    assistants: {
      type: 'array',
      description: 'The ones you may see, lowest id first',
      items: {
        type: 'object',
        properties: { id: { type: 'integer' }, name: { type: 'string' }, owner: { type: 'string', description: 'the owner’s email' } },
        required: ['id', 'name', 'owner'],
        additionalProperties: false,
      },
    },
    hidden_count: { type: 'integer', minimum: 0, description: 'How many other assistants, which you may not see, use it too' },
  },
  required: ['assistants', 'hidden_count'],
  additionalProperties: false,
} as const;

export type FileUsageView = FromSchema<typeof fileUsageSchema>;

/** `DELETE /api/files/{id}`: a file some assistant uses is deleted only when the client confirms it. */
export const fileDeletionQuerySchema = {
  type: 'object',
  properties: {
    force: {
      type: 'boolean',
      default: false,
      description:
        'true deletes the file even when assistants use it (their single-file tool then fails); otherwise that is a 409 file_in_use',
    },
  },
  additionalProperties: false,
} as const;

/** `GET /api/files/{id}/text`: the start of a file's text, for the files page's preview. */
export const fileTextSchema = {
  type: 'object',
  description: 'The text of a stored file, up to FILE_PREVIEW_CHARACTERS characters',
  properties: {
    text: { type: 'string' },
    truncated: { type: 'boolean', description: 'true when the file holds more than the characters shown' },
  },
  required: ['text', 'truncated'],
  additionalProperties: false,
} as const;

export type FileTextView = FromSchema<typeof fileTextSchema>;
