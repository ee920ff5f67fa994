/**
 * LAMB's JSON form of adding documents, as a JSON Schema: the route checks such bodies with it, and
 * knowledge-document-service.ts reads TextDocumentInput from it, so the shape of a text document
 * is declared once. Sizes are checked by the service, which names the limits.
 */
import type { FromSchema } from 'json-schema-to-ts';

export const textDocumentsSchema = {
  type: 'object',
  required: ['documents'],
  additionalProperties: false,
  properties: {
    documents: {
      type: 'array',
      minItems: 1,
      items: {
        type: 'object',
        required: ['text'],
        additionalProperties: false,
        properties: { text: { type: 'string', minLength: 1 }, metadata: { type: 'object' } },
      },
    },
  },
} as const;

/** One document of the JSON form: its text, and metadata every chunk of it will carry. */
export type TextDocumentInput = FromSchema<typeof textDocumentsSchema>['documents'][number];
