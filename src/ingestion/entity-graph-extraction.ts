/**
 * Reading one chunk's entities and relations with the organization's small fast model, for the
 * entity graph of a knowledge base (docs/graph-search.md). The model is asked for strict JSON; its
 * answer is parsed, checked against a JSON Schema, and bounded (entities and relations per chunk,
 * name length: the GRAPH_* settings) before anything is stored. An answer that is not that JSON
 * makes a ChunkExtractionError, which fails that chunk only.
 */
import type { FromSchema } from 'json-schema-to-ts';
import type { TextModel } from '../pipeline/plugin-contract/ports.js';
import { normalizedEntityName } from '../document-reading/entity-names.js';
import { createAjv } from '../validation/create-ajv.js';
import { validatorOnFirstUse } from '../validation/validator-on-first-use.js';
import type { GraphEntityInput, GraphRelationInput } from '../store/entity-graph-repository.js';

/** The bounds of what one chunk adds to the graph (GRAPH_ENTITIES_PER_CHUNK_MAX, GRAPH_RELATIONS_PER_CHUNK_MAX, GRAPH_ENTITY_NAME_MAX_CHARS, GRAPH_EXTRACTION_TOKENS_MAX). */
export interface GraphExtractionBounds {
  entitiesPerChunk: number;
  relationsPerChunk: number;
  nameCharacters: number;
  answerTokens: number;
}

export const EXTRACTION_INSTRUCTIONS =
  'You extract the named entities (people, places, organizations, works, events and key concepts) of a passage of course material, ' +
  'and the relations the passage states between them. Answer with JSON only, no prose, exactly in this shape: ' +
  '{"entities":[{"name":"Marie Curie","type":"person"}],"relations":[{"from":"Marie Curie","to":"Paris","label":"worked in"}]}. ' +
  'Use the names as the passage writes them; a relation names two entities of your list.';

/** The answer's shape; other fields are ignored, the ones named must have these types. */
const answerSchema = {
  type: 'object',
  required: ['entities'],
  properties: {
    entities: {
      type: 'array',
      maxItems: 1_000,
      items: {
        type: 'object',
        required: ['name'],
        properties: { name: { type: 'string' }, type: { type: 'string' } },
      },
    },
    relations: {
      type: 'array',
      maxItems: 1_000,
      items: {
        type: 'object',
        required: ['from', 'to'],
        properties: { from: { type: 'string' }, to: { type: 'string' }, label: { type: 'string' } },
      },
    },
  },
} as const;

type ExtractionAnswer = FromSchema<typeof answerSchema>;

const validateAnswer = validatorOnFirstUse(() => createAjv().compile<ExtractionAnswer>(answerSchema));

/** A chunk whose answer could not be used: the chunk adds nothing, the document goes on. */
export class ChunkExtractionError extends Error {}

export interface ExtractedGraph {
  entities: GraphEntityInput[];
  relations: GraphRelationInput[];
}

/** The JSON object of an answer, inside a ```json fence or surrounded by a sentence as small models write it. */
function jsonOf(answer: string): unknown {
  const start = answer.indexOf('{');
  const end = answer.lastIndexOf('}');
  if (start < 0 || end <= start) throw new ChunkExtractionError('the answer holds no JSON object');
  try {
    return JSON.parse(answer.slice(start, end + 1));
  } catch {
    throw new ChunkExtractionError('the answer is not valid JSON');
  }
}

/** The answer's entities and relations within the bounds: over-long names, unknown ends and repeats dropped. */
export function boundedGraph(answer: string, bounds: GraphExtractionBounds): ExtractedGraph {
  const parsed = jsonOf(answer);
  if (!validateAnswer(parsed)) throw new ChunkExtractionError('the answer does not have the asked shape');
  const entities = new Map<string, GraphEntityInput>();
  for (const entity of parsed.entities) {
    const displayName = entity.name.trim().replace(/\s+/g, ' ');
    const normalizedName = normalizedEntityName(displayName);
    if (normalizedName === '' || displayName.length > bounds.nameCharacters || entities.has(normalizedName)) continue;
    if (entities.size >= bounds.entitiesPerChunk) break;
    const type = normalizedEntityName(entity.type ?? '').slice(0, bounds.nameCharacters) || 'thing';
    entities.set(normalizedName, { normalizedName, displayName, type });
  }
  const relations = new Map<string, GraphRelationInput>();
  for (const relation of parsed.relations ?? []) {
    const from = normalizedEntityName(relation.from);
    const to = normalizedEntityName(relation.to);
    const label = (relation.label ?? '').trim().replace(/\s+/g, ' ') || 'related to';
    if (!entities.has(from) || !entities.has(to) || from === to || label.length > bounds.nameCharacters) continue;
    const key = JSON.stringify([from, to, label]);
    if (relations.has(key)) continue;
    if (relations.size >= bounds.relationsPerChunk) break;
    relations.set(key, { from, to, label });
  }
  return { entities: [...entities.values()], relations: [...relations.values()] };
}

/** Asks the model for one chunk's graph; a model failure rejects as the model's AppError, a bad answer as a ChunkExtractionError. */
export async function extractChunkGraph(
  model: TextModel,
  text: string,
  options: { bounds: GraphExtractionBounds; signal: AbortSignal },
): Promise<ExtractedGraph> {
  const answer = await model.complete({
    messages: [
      { role: 'system', content: EXTRACTION_INSTRUCTIONS },
      { role: 'user', content: `Passage:\n${text}` },
    ],
    maxTokens: options.bounds.answerTokens,
    signal: options.signal,
  });
  return boundedGraph(answer.text, options.bounds);
}
