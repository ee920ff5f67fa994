/**
 * JSON Schema fragments the API's shapes are built from: timestamps, pages of a list, open objects
 * and sources. They sit in the foundation layer so each area's *-schemas.ts can declare its
 * responses beside its requests, and the OpenAPI document (and the web app's generated client)
 * reads them from there.
 */

/** A row's id, in a path, a query or a body: a positive integer a PostgreSQL `integer` column holds. */
export const idSchema = { type: 'integer', minimum: 1, maximum: 2_147_483_647 } as const;

/** A UTC day written YYYY-MM-DD, as report and log filters take it (whether the day exists is checked after). */
export const utcDaySchema = { type: 'string', pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}$', maxLength: 10 } as const;

export const timestampSchema = { type: 'string', description: 'ISO 8601 date and time' } as const;
export const nullableTimestampSchema = { type: ['string', 'null'], description: 'ISO 8601 date and time, or null' } as const;

/** A page of a list with the count of all matches, as every paged list answers. */
export function pageSchema<const Item extends object>(description: string, item: Item) {
  return {
    type: 'object',
    description,
    properties: { items: { type: 'array', items: item }, total: { type: 'integer', description: 'how many match, over all pages' } },
    required: ['items', 'total'],
  } as const;
}

/**
 * A JSON object whose keys are open (metadata, configs, LAMB documents): every key is sent as it
 * is. Fast serialization drops keys a response schema does not list, so open objects must say so.
 */
export function openObjectSchema(description: string) {
  return { type: 'object', description, additionalProperties: true } as const;
}

/**
 * Where part of an answer came from (Source in src/pipeline/conversation/events.ts). The keys Merino's own
 * tools and the assistant tool write are declared, so the web app's generated types know them;
 * a plugin's own keys are still sent as they are.
 */
export const sourceSchema = {
  type: 'object',
  description: 'a source: where part of the answer came from',
  properties: {
    title: { type: 'string' },
    url: { type: 'string' },
    similarity: { type: 'number' },
    document_id: { type: 'string' },
    chunk_index: { type: 'integer' },
    page: { type: 'integer' },
    section: { type: 'string', description: 'the heading of the section the passage is under' },
    knowledge_base_id: { type: 'string', description: 'the knowledge base the document is in' },
    text: { type: 'string', description: 'the passage the answer was given' },
    tool: { type: 'string', description: 'the tool that found it' },
    function: { type: 'string', description: 'the function of that tool the model called, when it called one' },
    placeholder: { type: 'string', description: 'the prompt placeholder the tool filled, for a context tool' },
    assistant_id: { type: 'integer', description: 'the assistant called as a tool whose answer brought it' },
    assistant: { type: 'string', description: "that assistant's name" },
  },
  additionalProperties: true,
} as const;
