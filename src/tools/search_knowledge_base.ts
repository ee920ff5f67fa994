/**
 * search_knowledge_base — a function the model calls to search the assistant's knowledge bases
 * with a query of its own (seed 004's retrieve tool), where simple_rag searches once, before the
 * model runs, with the learner's message. Also known by the seed's name, `retrieve_documents`. Limited to the configured collections, each checked
 * against the assistant owner's access when it runs.
 */
import {
  collectionsSchema,
  defineTool,
  searchCollections,
  sourceOfHit,
  thresholdSchema,
  type KnowledgeHit,
} from '../pipeline/plugin-api.js';

const TOP_K_MAXIMUM = 20;
const QUERY_CHARACTERS_MAXIMUM = 1_000;

/** A numbered passage the model can cite: `[4] (notes.pdf, page 3) text`, numbered as the answer's sources are. */
function passage(hit: KnowledgeHit, number: number): string {
  const source = sourceOfHit(hit);
  const where = [source.title, source.section, source.page === undefined ? undefined : `page ${source.page}`].filter(Boolean).join(', ');
  return `[${number}] (${where}) ${hit.text}`;
}

export default defineTool({
  name: 'search_knowledge_base',
  // Seed 004's name for it: LAMB assistants that name their tools as the seed does keep working.
  aliases: ['retrieve_documents'],
  displayName: 'Search knowledge base',
  description: 'Lets the model search the configured knowledge bases with a query it writes, as often as it needs.',
  category: 'rag',
  version: '1.0',
  configSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['collections'],
    properties: {
      collections: collectionsSchema,
      top_k: { type: 'integer', minimum: 1, maximum: TOP_K_MAXIMUM, default: 5 },
      threshold: thresholdSchema,
    },
  } as const,
  traceInput: (config) => ({ collections: config.collections, top_k: config.top_k, threshold: config.threshold }),
  function: {
    describe: () => ({
      name: 'search_knowledge_base',
      description:
        "Searches the course's knowledge base and returns the most relevant passages, numbered, with their source file and page. Use it for questions about the course material.",
    }),
    parameters: {
      type: 'object',
      additionalProperties: false,
      required: ['query'],
      properties: {
        query: { type: 'string', minLength: 1, maxLength: QUERY_CHARACTERS_MAXIMUM, description: 'What to search for, in a few words.' },
      },
    } as const,
    async call(argumentsFromModel, context, config) {
      const hits = await searchCollections(context, {
        collections: config.collections,
        query: argumentsFromModel.query,
        topK: config.top_k,
        threshold: config.threshold,
      });
      if (hits.length === 0) return { content: 'No passages matched this query.' };
      const numbered = (firstNumber: number): string => hits.map((hit, index) => passage(hit, firstNumber + index)).join('\n\n');
      return { content: numbered(1), numberedContent: numbered, sources: hits.map(sourceOfHit) };
    },
  },
});
