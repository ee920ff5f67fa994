/**
 * graph_search — a function the model calls to follow how things in the course material are
 * connected (seed 004's graph search): it finds the entities the question names in the entity
 * graphs of the configured knowledge bases (built at ingestion by the small fast model, for
 * knowledge bases with `graph.enabled`), walks their neighbourhood within a depth and a fan-out,
 * and answers with the passages that mention the entities reached, as numbered sources. A status
 * step shows the entities found and one the walk. Not offered when the organization names no
 * small fast model, since no graph is then built (docs/graph-search.md).
 */
import {
  collectionsSchema,
  defineTool,
  sourceOfHit,
  type GraphAnswer,
  type KnowledgeHit,
  type SchemaValue,
  type ToolContext,
  type ToolOutput,
} from '../pipeline/plugin-api.js';

const TOOL_NAME = 'graph_search';
const QUESTION_CHARACTERS_MAXIMUM = 1_000;
/** Relations listed in the result: the walk may follow more, its passages say the rest. */
const STEPS_LISTED_MAXIMUM = 40;

const configSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['collections'],
  properties: {
    collections: collectionsSchema,
    depth: { type: 'integer', minimum: 0, maximum: 6, description: 'Relation steps to walk; at most GRAPH_SEARCH_DEPTH_MAX' },
    fan_out: {
      type: 'integer',
      minimum: 1,
      maximum: 200,
      description: 'Neighbours followed per entity and step; at most GRAPH_SEARCH_FANOUT_MAX',
    },
    passages: { type: 'integer', minimum: 1, maximum: 200, description: 'Passages returned; at most GRAPH_SEARCH_PASSAGES_MAX' },
  },
} as const;

type Config = SchemaValue<typeof configSchema>;

function lowered(setting: number, configured: number | undefined): number {
  return configured === undefined ? setting : Math.min(setting, configured);
}

function status(context: ToolContext, stage: string, state: 'running' | 'done' | 'error', message: string): void {
  const call = context.callStatus;
  call?.emit({ id: `${call.id}/${stage}`, tool: TOOL_NAME, state, message, parent: call.id });
}

/** `[4] (notes.md, Light reactions, page 3) text`: a passage as the model sees it. */
function passage(hit: KnowledgeHit, number: number): string {
  const source = sourceOfHit(hit);
  const where = [source.title, source.section, source.page === undefined ? undefined : `page ${source.page}`].filter(Boolean).join(', ');
  return `[${number}] (${where}) ${hit.text}`;
}

function header(answer: GraphAnswer): string {
  const lines = [`Entities the question names: ${answer.found.map((entity) => `${entity.name} (${entity.type})`).join(', ')}.`];
  if (answer.steps.length > 0) {
    const listed = answer.steps.slice(0, STEPS_LISTED_MAXIMUM).map((step) => `${step.from} → ${step.label} → ${step.to}`);
    const more = answer.steps.length > STEPS_LISTED_MAXIMUM ? ` (and ${answer.steps.length - STEPS_LISTED_MAXIMUM} more)` : '';
    lines.push(`Relations followed: ${listed.join('; ')}${more}.`);
  }
  lines.push(`Passages that mention them, the most connected first:`);
  return lines.join('\n');
}

async function search(question: string, context: ToolContext, config: Config): Promise<ToolOutput> {
  const bounds = context.integrations.entityGraph ?? { depthMaximum: 0, fanOutMaximum: 1, passagesMaximum: 1 };
  const query = {
    collectionIds: config.collections,
    question,
    depth: lowered(bounds.depthMaximum, config.depth),
    fanOut: lowered(bounds.fanOutMaximum, config.fan_out),
    passages: lowered(bounds.passagesMaximum, config.passages),
  };
  status(context, 'entities', 'running', 'looking for the entities the question names');
  const answer = await context.knowledge.graph(query);
  if (answer.found.length === 0) {
    status(context, 'entities', 'done', 'found no entity of the question in the entity graph');
    return { content: 'The entity graph has no entity this question names. Try search_knowledge_base instead.' };
  }
  status(context, 'entities', 'done', `found ${answer.found.map((entity) => entity.name).join(', ')}`);
  status(
    context,
    'walk',
    'done',
    `walked ${query.depth} steps (at most ${query.fanOut} neighbours each): ${answer.steps.length} relations, ${answer.reached} entities, ${answer.hits.length} passages`,
  );
  if (answer.hits.length === 0) return { content: `${header(answer)}\nnone.` };
  const numbered = (firstNumber: number): string =>
    `${header(answer)}\n\n${answer.hits.map((hit, index) => passage(hit, firstNumber + index)).join('\n\n')}`;
  return {
    content: numbered(1),
    numberedContent: numbered,
    sources: answer.hits.map(sourceOfHit),
    metadata: {
      entities: answer.found.length,
      relations: answer.steps.length,
      reached: answer.reached,
      depth: query.depth,
      fan_out: query.fanOut,
    },
  };
}

export default defineTool({
  name: TOOL_NAME,
  displayName: 'Graph search',
  description:
    'Lets the model follow the people, places and ideas of the configured knowledge bases through their entity graph, and read the passages that connect them.',
  category: 'rag',
  version: '1.0',
  configSchema,
  enabled: (context) => context.integrations.entityGraph !== undefined,
  traceInput: (config) => ({ collections: config.collections, depth: config.depth, fan_out: config.fan_out, passages: config.passages }),
  function: {
    describe: () => ({
      name: TOOL_NAME,
      description:
        "Finds the people, places, works and ideas a question names in the course's entity graph, follows their relations, and returns the numbered passages that connect them. " +
        'Use it for questions about how things are related (who worked with whom, what led to what); cite passages by number.',
    }),
    parameters: {
      type: 'object',
      additionalProperties: false,
      required: ['question'],
      properties: {
        question: {
          type: 'string',
          minLength: 1,
          maxLength: QUESTION_CHARACTERS_MAXIMUM,
          description: 'The question, naming the people, places or ideas it is about as the course writes them.',
        },
      },
    } as const,
    call: (argumentsFromModel, context, config) => search(argumentsFromModel.question, context, config),
  },
});
