/**
 * The query string of a paged list, as a JSON Schema: the routes validate it and show it in the
 * OpenAPI document, and the services read the type of a page request from it (PageQuery), so the
 * shape of a page is declared once. It sits under the services because both sides need it.
 */
import type { FromSchema } from 'json-schema-to-ts';

/** The query of a paged list; `extra` adds the list's own filters, kept literal so routes read their types from it. */
// eslint-disable-next-line @typescript-eslint/no-generated-empty-object-type -- without filters, a page adds no properties of its own
export function pageQuerySchema<const Extra extends Record<string, object> = Record<never, never>>(
  pageSizeMaximum: number,
  extra: Extra = {} as Extra,
) {
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

/** A page request as a list route hands it over: limit and offset filled in by their defaults, then the list's own filters. */
// eslint-disable-next-line @typescript-eslint/no-generated-empty-object-type -- without filters, a page adds no properties of its own
export type PageQuery<Extra extends Record<string, object> = Record<never, never>> = FromSchema<ReturnType<typeof pageQuerySchema<Extra>>>;
