/**
 * JSON Schema fragments only HTTP has: error answers, the id in a path, an empty answer. The
 * fragments of the API's shapes themselves are in src/validation/shape-fragments.ts.
 */

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

/** Error responses every authenticated route may give; listed so the OpenAPI document shows them. */
export const commonErrorResponses = {
  400: errorResponseSchema,
  401: errorResponseSchema,
  403: errorResponseSchema,
  404: errorResponseSchema,
} as const;

/** The answer of a 204 route: no body. */
export function noContentResponse(description: string) {
  return { type: 'null', description } as const;
}
