/**
 * JSON Schema fragments only HTTP has: error answers, the id in a path, an empty answer. The
 * fragments of the API's shapes themselves (the one id schema among them) are in
 * src/validation/shape-fragments.ts.
 */
import { idSchema } from '../validation/shape-fragments.js';

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

/** The parameters of a path with several ids, e.g. `pathIdsSchema('id', 'chatId')` for /api/assistants/{id}/chats/{chatId}. */
export function pathIdsSchema<const Name extends string>(...names: Name[]) {
  return {
    type: 'object',
    properties: Object.fromEntries(names.map((name) => [name, idSchema])) as { [Key in Name]: typeof idSchema },
    required: names,
  } as const;
}

/** The parameters of a path with one id, `{id}`: every such route validates it with this. */
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
