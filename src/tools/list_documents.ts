/**
 * list_documents — a function the model calls to see what the assistant's knowledge bases hold,
 * and to answer questions about the documents themselves ("which PDFs have more than 20 pages?",
 * "what was added this week?"): seed 004's metadata tool, also known by its name there,
 * `query_documents_metadata`. The seed's tool let the model write SQL; here the model fills a
 * fixed, validated filter (title words, type, pages, size, dates, knowledge base, order), which is
 * applied to the documents the owner may read, so nothing the model writes ever reaches the store.
 */
import { AppError } from '../errors/app-error.js';
import { collectionsSchema, defineTool, type DocumentSummary, type SchemaValue } from '../pipeline/plugin-api.js';

/** A long listing is cut: the model needs an overview, not a catalogue. */
export const LISTED_DOCUMENTS_MAXIMUM = 200;
const TEXT_FILTER_CHARACTERS_MAXIMUM = 200;
const DATE = { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2}', maxLength: 30 } as const;
const COUNT = { type: 'integer', minimum: 0, maximum: 1_000_000_000_000 } as const;
const ORDERS = ['newest', 'oldest', 'title', 'largest', 'most_pages'] as const;

const parameters = {
  type: 'object',
  additionalProperties: false,
  properties: {
    collection: { type: 'string', maxLength: 100, description: 'One knowledge base id to look in; all of them when omitted.' },
    title_contains: {
      type: 'string',
      minLength: 1,
      maxLength: TEXT_FILTER_CHARACTERS_MAXIMUM,
      description: 'Only documents whose title (file name) contains these words, in any letter case.',
    },
    type: {
      type: 'string',
      minLength: 1,
      maxLength: TEXT_FILTER_CHARACTERS_MAXIMUM,
      description: 'Only documents of this type: a file extension ("pdf", "docx", "md") or a media type ("application/pdf").',
    },
    pages_min: { ...COUNT, description: 'Only documents with at least this many pages (paged formats such as PDF).' },
    pages_max: { ...COUNT, description: 'Only documents with at most this many pages.' },
    bytes_min: { ...COUNT, description: 'Only documents of at least this size in bytes.' },
    bytes_max: { ...COUNT, description: 'Only documents of at most this size in bytes.' },
    added_after: { ...DATE, description: 'Only documents added on or after this date (YYYY-MM-DD).' },
    added_before: { ...DATE, description: 'Only documents added before this date (YYYY-MM-DD).' },
    order: { type: 'string', enum: ORDERS, default: 'newest', description: 'How to order the documents.' },
    limit: { type: 'integer', minimum: 1, maximum: LISTED_DOCUMENTS_MAXIMUM, description: 'Show at most this many documents.' },
  },
} as const;

type DocumentFilter = SchemaValue<typeof parameters>;
type ListedDocument = DocumentSummary & { knowledge_base: string };

/** Media types by the extensions teachers name them by; anything else is compared as written. */
const TYPE_ALIASES: Readonly<Record<string, string>> = {
  pdf: 'application/pdf',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  pptx: 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
  md: 'text/markdown',
  markdown: 'text/markdown',
  txt: 'text/plain',
  text: 'text/plain',
  html: 'text/html',
  json: 'application/json',
};

function typeMatches(documentType: string, wanted: string): boolean {
  const asked = wanted.trim().toLowerCase().replace(/^\./, '');
  const type = documentType.toLowerCase();
  return type === (TYPE_ALIASES[asked] ?? asked) || type.endsWith(`/${asked}`);
}

/** A bound that is given and not met; absent bounds and unknown page counts (non-paged formats) never exclude. */
function outside(value: number | null, minimum: number | undefined, maximum: number | undefined): boolean {
  if (minimum === undefined && maximum === undefined) return false;
  if (value === null) return true;
  return (minimum !== undefined && value < minimum) || (maximum !== undefined && value > maximum);
}

function matches(document: DocumentSummary, filter: DocumentFilter): boolean {
  if (filter.title_contains !== undefined && !document.title.toLowerCase().includes(filter.title_contains.trim().toLowerCase()))
    return false;
  if (filter.type !== undefined && !typeMatches(document.type, filter.type)) return false;
  if (outside(document.pages, filter.pages_min, filter.pages_max)) return false;
  if (outside(document.bytes, filter.bytes_min, filter.bytes_max)) return false;
  // Stored dates are ISO 8601 in UTC, so comparing the text compares the instants.
  if (filter.added_after !== undefined && document.added_at < filter.added_after) return false;
  return filter.added_before === undefined || document.added_at < filter.added_before;
}

const COMPARATORS: Record<(typeof ORDERS)[number], (first: ListedDocument, second: ListedDocument) => number> = {
  newest: (first, second) => second.added_at.localeCompare(first.added_at),
  oldest: (first, second) => first.added_at.localeCompare(second.added_at),
  title: (first, second) => first.title.localeCompare(second.title),
  largest: (first, second) => second.bytes - first.bytes,
  most_pages: (first, second) => (second.pages ?? -1) - (first.pages ?? -1),
};

function chosenCollections(wanted: string | undefined, configured: readonly string[]): readonly string[] {
  if (wanted === undefined) return configured;
  if (!configured.includes(wanted))
    throw new AppError('not_found', `Knowledge base ${wanted} is not one of this assistant's; use one of: ${configured.join(', ')}.`);
  return [wanted];
}

export default defineTool({
  name: 'list_documents',
  aliases: ['query_documents_metadata'],
  displayName: 'List knowledge-base documents',
  description:
    'Lets the model list and filter the documents of the configured knowledge bases (titles, types, pages, sizes, dates) to answer questions about the material itself.',
  category: 'rag',
  version: '1.1',
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
        "Lists the documents in the course's knowledge base: title, type, pages, size in bytes, when each was added. Filter and order them to answer questions about the documents themselves (which, how many, how long, how recent).",
    }),
    parameters,
    async call(filter, context, config) {
      const collections = chosenCollections(filter.collection, config.collections);
      const listed = await Promise.all(
        collections.map(async (collection) =>
          (await context.knowledge.listDocuments(collection)).map((document) => ({ knowledge_base: collection, ...document })),
        ),
      );
      const matching = listed
        .flat()
        .filter((document) => matches(document, filter))
        .sort(COMPARATORS[filter.order]);
      const shownMaximum = filter.limit ?? LISTED_DOCUMENTS_MAXIMUM;
      const shown = matching.slice(0, shownMaximum);
      const note = matching.length > shown.length ? { note: `Showing ${shown.length} of ${matching.length} matching documents.` } : {};
      return {
        content: JSON.stringify({ matching: matching.length, documents: shown, ...note }),
        metadata: { matching: matching.length, shown: shown.length },
      };
    },
  },
});
