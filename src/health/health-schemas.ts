/**
 * What the health routes answer, as JSON Schemas: health-service.ts reads HealthReport from its
 * schema, so the report is declared once, for the OpenAPI document and the service alike.
 */
import type { FromSchema } from 'json-schema-to-ts';

export const healthReportSchema = {
  type: 'object',
  description: 'The store answered',
  properties: {
    status: { type: 'string', enum: ['ok'] },
    database: { type: 'string', enum: ['sqlite', 'postgres'], description: 'which store this process uses' },
  },
  required: ['status', 'database'],
} as const;

export type HealthReport = FromSchema<typeof healthReportSchema>;

export const lambStatusSchema = {
  type: 'object',
  description: 'The server is up (LAMB-compatible)',
  properties: { status: { type: 'boolean' } },
  required: ['status'],
} as const;
