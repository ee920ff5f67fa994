/**
 * One event of a knowledge base's job event stream (`GET /api/knowledge-bases/{id}/jobs/events`),
 * as a JSON Schema: the stream writes each as one `data:` line, OpenAPI documents it, and
 * knowledge-job-events.ts takes its type from it, so the shape is declared once.
 */
import type { FromSchema } from 'json-schema-to-ts';
import { timestampSchema } from '../validation/shape-fragments.js';

export const jobEventSchema = {
  type: 'object',
  description:
    'A change of one ingestion job: `queued`, `running` (with `percent` and `stage`), `completed` (with `chunk_count`), `failed` (with `reason`) or `cancelled`',
  properties: {
    event: { type: 'string', enum: ['queued', 'running', 'completed', 'failed', 'cancelled'] },
    job_id: { type: 'integer' },
    document_id: { type: 'integer' },
    file_name: { type: 'string' },
    percent: { type: 'integer', minimum: 0, maximum: 100 },
    stage: { type: ['string', 'null'], description: 'what the job is doing now, in words' },
    chunk_count: { type: ['integer', 'null'], description: 'the chunks the document was indexed into; only when completed' },
    reason: { type: ['string', 'null'], description: 'the safe message of what failed; only when failed' },
    updated_at: timestampSchema,
  },
  required: ['event', 'job_id', 'document_id', 'file_name', 'percent', 'stage', 'chunk_count', 'reason', 'updated_at'],
  additionalProperties: false,
} as const;

export type JobEvent = FromSchema<typeof jobEventSchema>;
