/**
 * simple_rag — retrieves the passages of the assistant's knowledge bases that best match the
 * learner's last message (or, in `context_aware` mode, a query the organization's small fast model
 * writes from the conversation) and puts them into `{context}`, with their sources. Every collection is
 * checked against the assistant owner's access when it is queried; they are queried at once.
 */
import { collectionsSchema, defineTool, lastUserText, searchCollections, sourceOfHit, thresholdSchema } from '../pipeline/plugin-api.js';

const TOP_K_MAXIMUM = 20;

export default defineTool({
  name: 'simple_rag',
  displayName: 'Knowledge Base RAG',
  description: "Retrieves the passages of the assistant's knowledge bases that best match the question.",
  category: 'rag',
  version: '1.0',
  configSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['collections'],
    properties: {
      collections: collectionsSchema,
      top_k: { type: 'integer', minimum: 1, maximum: TOP_K_MAXIMUM, default: 3 },
      threshold: thresholdSchema,
      query_mode: { type: 'string', enum: ['last_message', 'context_aware'], default: 'last_message' },
    },
  } as const,
  placeholder: 'context',
  status: (config) => `querying knowledge base ${config.collections.join(', ')}`,
  traceInput: (config) => ({
    collections: config.collections,
    top_k: config.top_k,
    threshold: config.threshold,
    query_mode: config.query_mode,
  }),
  async provide(context, config) {
    const lastMessage = lastUserText(context.messages);
    if (lastMessage.trim() === '') return { content: '' };
    // context_aware falls back to the last message when the organization has no small fast model or it fails.
    const rewritten =
      config.query_mode === 'context_aware' ? await context.queryRewriter.rewrite(context.messages, context.signal) : undefined;
    const query = rewritten ?? lastMessage;
    const hits = await searchCollections(context, {
      collections: config.collections,
      query,
      topK: config.top_k,
      threshold: config.threshold,
    });
    return {
      content: hits.map((hit) => hit.text).join('\n\n'),
      sources: hits.map(sourceOfHit),
      metadata: { query_rewritten: rewritten !== undefined },
    };
  },
});
