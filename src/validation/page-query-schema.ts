/**
 * The query string of a paged list, as a JSON Schema: the routes validate it and show it in the
 * OpenAPI document, and the services read the type of a page request from it (PageQuery), so the
 * shape of a page is declared once. It sits under the services because both sides need it.
 */
import type { FromSchema } from 'json-schema-to-ts';

/** Where a page starts and how long it may be; every paged list takes these two. */
function pageBoundsProperties(pageSizeMaximum: number) {
  return {
    limit: {
      type: 'integer',
      minimum: 1,
      maximum: pageSizeMaximum,
      default: Math.min(50, pageSizeMaximum),
      description: 'how many to answer at most (PAGE_SIZE_MAX is the largest)',
    },
    offset: { type: 'integer', minimum: 0, maximum: 1_000_000_000, default: 0, description: 'how many to skip' },
  } as const;
}

/** The query of a paged list; `extra` adds the list's own filters, kept literal so routes read their types from it. */
// eslint-disable-next-line @typescript-eslint/no-generated-empty-object-type -- without filters, a page adds no properties of its own
export function pageQuerySchema<const Extra extends Record<string, object> = Record<never, never>>(
  pageSizeMaximum: number,
  extra: Extra = {} as Extra,
) {
  return {
    type: 'object',
    properties: {
      ...pageBoundsProperties(pageSizeMaximum),
      q: { type: 'string', maxLength: 200 },
      ...extra,
    },
    additionalProperties: false,
  } as const;
}

/**
 * The query of a paged list that has no text search: only limit, offset and the list's own
 * filters, so a `q` it would ignore is refused rather than accepted.
 */
// eslint-disable-next-line @typescript-eslint/no-generated-empty-object-type -- without filters, a page adds no properties of its own
export function pageBoundsQuerySchema<const Extra extends Record<string, object> = Record<never, never>>(
  pageSizeMaximum: number,
  extra: Extra = {} as Extra,
) {
  return {
    type: 'object',
    properties: { ...pageBoundsProperties(pageSizeMaximum), ...extra },
    additionalProperties: false,
  } as const;
}

/** A page request as a list route hands it over: limit and offset filled in by their defaults, then the list's own filters. */
// eslint-disable-next-line @typescript-eslint/no-generated-empty-object-type -- without filters, a page adds no properties of its own
export type PageQuery<Extra extends Record<string, object> = Record<never, never>> = FromSchema<ReturnType<typeof pageQuerySchema<Extra>>>;

/** The part of a page request a repository's query needs: where the page starts and how long it may be. */
export interface PageBounds {
  limit: number;
  offset: number;
}
