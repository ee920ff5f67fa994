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

/** A row id as the API takes one, in a path, a query or a body: a positive 32-bit integer. */
export const idSchema = { type: 'integer', minimum: 1, maximum: 2_147_483_647 } as const;

/** The parameters of a path that names rows by their ids, e.g. `pathIdsSchema('id', 'documentId')`. */
export function pathIdsSchema<const Names extends readonly string[]>(...names: Names) {
  return {
    type: 'object',
    properties: Object.fromEntries(names.map((name) => [name, idSchema])) as { [Name in Names[number]]: typeof idSchema },
    required: names,
  } as const;
}

/** The parameters of a path with one id, `:id`. */
export const idParametersSchema = pathIdsSchema('id');

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
