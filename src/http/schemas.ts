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

/** Error responses every authenticated route may give; listed so the OpenAPI document shows them. */
export const commonErrorResponses = {
  400: errorResponseSchema,
  401: errorResponseSchema,
  403: errorResponseSchema,
  404: errorResponseSchema,
} as const;

/**
 * A JSON object whose keys are open (metadata, configs, LAMB documents): every key is sent as it
 * is. Fast serialization drops keys a response schema does not list, so open objects must say so.
 */
export function openObjectSchema(description: string) {
  return { type: 'object', description, additionalProperties: true } as const;
}

/** The answer of a 204 route: no body. */
export function noContentResponse(description: string) {
  return { type: 'null', description } as const;
}

/** A page of a list with the count of all matches, as every paged list answers. */
export function pageSchema<const Item extends object>(description: string, item: Item) {
  return {
    type: 'object',
    description,
    properties: { items: { type: 'array', items: item }, total: { type: 'integer', description: 'how many match, over all pages' } },
    required: ['items', 'total'],
  } as const;
}

export const timestampSchema = { type: 'string', description: 'ISO 8601 date and time' } as const;
export const nullableTimestampSchema = { type: ['string', 'null'], description: 'ISO 8601 date and time, or null' } as const;

/** A user as the API shows one (src/auth/user-view.ts): never the password hash. */
export const userViewProperties = {
  id: { type: 'integer' },
  email: { type: 'string' },
  name: { type: 'string' },
  organization_id: { type: 'integer' },
  role: { type: 'string' },
  is_system_admin: { type: 'boolean' },
  disabled: { type: 'boolean' },
  created_at: timestampSchema,
  updated_at: timestampSchema,
} as const;

export function userViewSchema(description: string) {
  return { type: 'object', description, properties: userViewProperties } as const;
}
