/**
 * The shapes of following a web page's same-site links (a crawl) and of refreshing a URL document,
 * as JSON Schemas: the routes check bodies and serialize answers with them, and the services read
 * their types from them. Bounds are checked by the services, which name the settings.
 */
import type { FromSchema } from 'json-schema-to-ts';
import { nullableTimestampSchema, timestampSchema } from '../../validation/shape-fragments.js';

export const webCrawlBodySchema = {
  type: 'object',
  additionalProperties: false,
  required: ['url'],
  properties: {
    url: { type: 'string', minLength: 1, maxLength: 2_000, description: 'The first page, http or https, on a public address' },
    depth: {
      type: 'integer',
      minimum: 1,
      description: 'How many links away from the first page to follow (1: its links only); at most WEB_CRAWL_DEPTH_MAX. Default 1.',
    },
    pages: {
      type: 'integer',
      minimum: 1,
      description: 'Most pages to read, the first included; at most WEB_CRAWL_PAGES_MAX. Default 20, or less when the setting is lower.',
    },
  },
} as const;

export type WebCrawlBody = FromSchema<typeof webCrawlBodySchema>;

export const webCrawlViewSchema = {
  type: 'object',
  description: 'A crawl of same-site links: its bounds, how far it has got, the documents it made and the pages that failed',
  additionalProperties: false,
  properties: {
    id: { type: 'integer' },
    knowledge_base_id: { type: 'integer' },
    url: { type: 'string' },
    depth: { type: 'integer' },
    pages_maximum: { type: 'integer' },
    status: { type: 'string', enum: ['running', 'completed', 'failed'] },
    pages_read: { type: 'integer', description: 'pages read so far, each now a document' },
    pages_failed: { type: 'integer' },
    pages_found: { type: 'integer', description: 'distinct same-site pages found so far, within pages_maximum' },
    failures: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        properties: { url: { type: 'string' }, reason: { type: 'string' } },
        required: ['url', 'reason'],
      },
    },
    documents: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        properties: { document_id: { type: 'integer' }, job_id: { type: 'integer' }, url: { type: 'string' } },
        required: ['document_id', 'job_id', 'url'],
      },
    },
    created_at: timestampSchema,
    updated_at: timestampSchema,
    finished_at: nullableTimestampSchema,
  },
  required: [
    'id',
    'knowledge_base_id',
    'url',
    'depth',
    'pages_maximum',
    'status',
    'pages_read',
    'pages_failed',
    'pages_found',
    'failures',
    'documents',
    'created_at',
    'updated_at',
    'finished_at',
  ],
} as const;

export type WebCrawlView = FromSchema<typeof webCrawlViewSchema>;

export const documentRefreshBodySchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    every_seconds: {
      type: ['integer', 'null'],
      minimum: 1,
      description:
        'Also refresh it on a schedule, this often (at least WEB_REFRESH_INTERVAL_MIN_SECONDS); null stops the schedule, absent leaves it as it is',
    },
  },
} as const;

export type DocumentRefreshBody = FromSchema<typeof documentRefreshBodySchema>;

export const documentRefreshViewSchema = {
  type: 'object',
  description:
    'How the refresh went: `changed` (re-indexed by job_id), `unchanged` (only its last-checked time moved) or `failed` (its passages are kept; reason says why)',
  additionalProperties: false,
  properties: {
    document_id: { type: 'integer' },
    outcome: { type: 'string', enum: ['changed', 'unchanged', 'failed'] },
    reason: { type: ['string', 'null'] },
    job_id: { type: ['integer', 'null'], description: 'the ingestion job re-indexing a changed page' },
    checked_at: timestampSchema,
    every_seconds: { type: ['integer', 'null'] },
  },
  required: ['document_id', 'outcome', 'reason', 'job_id', 'checked_at', 'every_seconds'],
} as const;

export type DocumentRefreshView = FromSchema<typeof documentRefreshViewSchema>;
