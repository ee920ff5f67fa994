/** JSON Schema fragments shared by routes; they also feed the OpenAPI document. */

export const errorResponseSchema = {
  type: 'object',
  properties: {
    error: {
      type: 'object',
      properties: {
        code: { type: 'string' },
        message: { type: 'string' },
        type: { type: 'string' },
        param: { type: ['string', 'null'] },
        details: { type: 'object', additionalProperties: true },
        request_id: { type: 'string' },
      },
      required: ['code', 'message', 'type', 'param'],
    },
  },
  required: ['error'],
} as const;

export const idParametersSchema = {
  type: 'object',
  properties: { id: { type: 'integer', minimum: 1, maximum: 2_147_483_647 } },
  required: ['id'],
} as const;

export function pageQuerySchema(pageSizeMaximum: number, extra: Record<string, object> = {}) {
  return {
    type: 'object',
    properties: {
      limit: { type: 'integer', minimum: 1, maximum: pageSizeMaximum, default: Math.min(50, pageSizeMaximum) },
      offset: { type: 'integer', minimum: 0, maximum: 1_000_000_000, default: 0 },
      q: { type: 'string', maxLength: 200 },
      ...extra,
    },
    additionalProperties: false,
  } as const;
}

export const emailSchema = { type: 'string', minLength: 3, maxLength: 320, pattern: '^[^\\s@]+@[^\\s@]+$' } as const;
export const passwordSchema = { type: 'string', minLength: 1, maxLength: 1024 } as const;
export const roleSchema = { type: 'string', enum: ['admin', 'creator', 'learner'] } as const;

/** Error responses every authenticated route may give; listed so the OpenAPI document shows them. */
export const commonErrorResponses = {
  400: errorResponseSchema,
  401: errorResponseSchema,
  403: errorResponseSchema,
  404: errorResponseSchema,
} as const;
