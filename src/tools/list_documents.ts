/**
 * list_documents — a function the model calls to see what the assistant's knowledge bases hold
 * (seed 004's metadata tool): titles, types, pages, chunk counts and dates of the configured
 * collections' documents. Read-only and fixed in shape: the model chooses nothing but the
 * collection, so no query of its own ever reaches the store.
 */
import { AppError } from '../errors/app-error.js';
import { collectionsSchema, defineTool } from '../pipeline/plugin-api.js';

/** A long listing is cut: the model needs an overview, not a catalogue. */
export const LISTED_DOCUMENTS_MAXIMUM = 200;

export default defineTool({
  name: 'list_documents',
  displayName: 'List knowledge-base documents',
  description: 'Lets the model list the documents of the configured knowledge bases (titles, types, pages, dates).',
  category: 'rag',
  version: '1.0',
  configSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['collections'],
    properties: {
      collections: collectionsSchema,
    },
  } as const,
  traceInput: (config) => ({ collections: config.collections }),
  function: {
    describe: () => ({
      name: 'list_documents',
      description:
        "Lists the documents in the course's knowledge base: title, type, number of pages, when each was added. Use it to see what material is available.",
    }),
    parameters: {
      type: 'object',
      additionalProperties: false,
      properties: { collection: { type: 'string', description: 'One knowledge base id to list; all of them when omitted.' } },
    } as const,
    async call(argumentsFromModel, context, config) {
      const wanted = argumentsFromModel.collection;
      if (wanted !== undefined && !config.collections.includes(wanted)) {
        throw new AppError(
          'not_found',
          `Knowledge base ${wanted} is not one of this assistant's; use one of: ${config.collections.join(', ')}.`,
        );
      }
      const collections = wanted === undefined ? config.collections : [wanted];
      const listed = await Promise.all(
        collections.map(async (collection) => ({ collection, documents: await context.knowledge.listDocuments(collection) })),
      );
      const total = listed.reduce((sum, entry) => sum + entry.documents.length, 0);
      let remaining = LISTED_DOCUMENTS_MAXIMUM;
      const shown = listed.map((entry) => {
        const documents = entry.documents.slice(0, Math.max(0, remaining));
        remaining -= documents.length;
        return { knowledge_base: entry.collection, documents };
      });
      const note = total > LISTED_DOCUMENTS_MAXIMUM ? { note: `Showing ${LISTED_DOCUMENTS_MAXIMUM} of ${total} documents.` } : {};
      return { content: JSON.stringify({ knowledge_bases: shown, ...note }) };
    },
  },
});
