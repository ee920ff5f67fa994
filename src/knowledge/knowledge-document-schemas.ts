/**
 * LAMB's JSON form of adding documents, and how the API shows documents, their ingestion jobs and
 * what it queued, as JSON Schemas: the routes check bodies and serialize answers with them, and
 * the document service and its views read their types from them, so each shape is
 * declared once. Sizes are checked by the service, which names the limits.
 */
import type { FromSchema } from 'json-schema-to-ts';
import { timestampSchema } from '../validation/shape-fragments.js';

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

export const documentStatusSchema = { type: 'string', enum: ['pending', 'processing', 'completed', 'failed', 'cancelled'] } as const;

/** Where a document was read from, and how its refresh stands (docs/knowledge-bases.md "Refreshing a page"). */
const documentRefreshProperties = {
  source_url: { type: ['string', 'null'], description: 'the web page it was read from; null for an upload' },
  last_checked_at: { type: ['string', 'null'], description: 'when its page was last read again by a refresh' },
  refresh_outcome: {
    type: ['string', 'null'],
    enum: ['changed', 'unchanged', 'failed', null],
    description: 'how its last refresh went; null before any',
  },
  refresh_error: { type: ['string', 'null'], description: 'why its last refresh failed (its passages are kept)' },
  refresh_every_seconds: { type: ['integer', 'null'], description: 'its refresh schedule; null for none' },
} as const;
const documentRefreshRequired = ['source_url', 'last_checked_at', 'refresh_outcome', 'refresh_error', 'refresh_every_seconds'] as const;

/** A document as the API answers with it, with its ingestion status (knowledge-document-views.ts builds views to this type). */
export function documentViewSchema(description: string) {
  return {
    type: 'object',
    description,
    properties: {
      id: { type: 'integer' },
      file_name: { type: 'string' },
      content_type: { type: 'string' },
      size_bytes: { type: 'integer' },
      page_count: {
        type: ['integer', 'null'],
        description: 'its pages, for a format that has them (PDF); null otherwise or before it is read',
      },
      status: documentStatusSchema,
      error: { type: ['string', 'null'], description: 'why its ingestion failed' },
      chunk_count: { type: 'integer' },
      job_id: { type: ['integer', 'null'], description: 'its latest ingestion job' },
      ...documentRefreshProperties,
      created_at: timestampSchema,
      updated_at: timestampSchema,
    },
    required: [
      'id',
      'file_name',
      'content_type',
      'size_bytes',
      'page_count',
      'status',
      'error',
      'chunk_count',
      'job_id',
      ...documentRefreshRequired,
      'created_at',
      'updated_at',
    ],
    additionalProperties: false,
  } as const;
}

export type DocumentView = FromSchema<ReturnType<typeof documentViewSchema>>;

/** An ingestion job with its progress, as the API answers with it. */
export function jobViewSchema(description: string) {
  return {
    type: 'object',
    description,
    properties: {
      id: { type: 'integer' },
      document_id: { type: 'integer' },
      status: documentStatusSchema,
      progress: {
        type: 'object',
        properties: {
          current: { type: 'integer' },
          total: { type: 'integer' },
          percentage: { type: 'integer' },
          message: { type: ['string', 'null'] },
        },
        required: ['current', 'total', 'percentage', 'message'],
        additionalProperties: false,
      },
      error: { type: ['string', 'null'], description: 'the safe message of what failed' },
      attempts: { type: 'integer' },
      created_at: timestampSchema,
      updated_at: timestampSchema,
    },
    required: ['id', 'document_id', 'status', 'progress', 'error', 'attempts', 'created_at', 'updated_at'],
    additionalProperties: false,
  } as const;
}

export type JobView = FromSchema<ReturnType<typeof jobViewSchema>>;

/** One document queued for ingestion, and its job. */
const queuedDocumentSchema = {
  type: 'object',
  properties: { document_id: { type: 'integer' }, job_id: { type: 'integer' } },
  required: ['document_id', 'job_id'],
  additionalProperties: false,
} as const;

export type QueuedDocument = FromSchema<typeof queuedDocumentSchema>;

/**
 * The answer to an upload (one document) or to JSON texts (one entry per text). One object
 * declares both, so neither form's keys are required at the top.
 */
export const queuedSchema = {
  type: 'object',
  description: 'Queued for ingestion: `{document_id, job_id}` for an upload, `{documents: [{document_id, job_id}]}` for JSON texts',
  properties: {
    ...queuedDocumentSchema.properties,
    documents: { type: 'array', items: queuedDocumentSchema },
  },
} as const;

/** A web page or a video to add to a knowledge base (docs/knowledge-bases.md, "Web pages" and "Video captions"). */
export const webPageBodySchema = {
  type: 'object',
  additionalProperties: false,
  required: ['url'],
  properties: {
    url: {
      type: 'string',
      minLength: 1,
      maxLength: 2_000,
      description:
        "The page or video, http or https, on a public address: a YouTube video's captions, a caption file (.vtt, .srt), or the caption track a page offers for its video become a transcript; any other page's readable text becomes a document that links back to it",
    },
    language: {
      type: 'string',
      minLength: 2,
      maxLength: 35,
      pattern: '^[A-Za-z]{2,3}([-_][A-Za-z0-9]{1,8})*$',
      description:
        "For a video, the captions' language (a code such as `es` or `pt-BR`); without it, the video's default captions, a person's before automatic ones",
    },
  },
} as const;

export type WebPageBody = FromSchema<typeof webPageBodySchema>;

/** A page or video added: its document and job, where it was read after redirects, and what was made of it. */
export const queuedWebPageSchema = {
  type: 'object',
  description:
    "The address was read: its document and ingestion job, the address its passages link to, its title, and whether it became a web page or a video transcript (with the captions' language)",
  properties: {
    ...queuedDocumentSchema.properties,
    url: { type: 'string' },
    title: { type: 'string' },
    kind: { type: 'string', enum: ['web_page', 'transcript'] },
    language: { type: ['string', 'null'], description: "a transcript's captions language code, when known; null for a web page" },
  },
  required: ['document_id', 'job_id', 'url', 'title', 'kind', 'language'],
  additionalProperties: false,
} as const;

export type QueuedWebPage = FromSchema<typeof queuedWebPageSchema>;
