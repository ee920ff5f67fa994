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
