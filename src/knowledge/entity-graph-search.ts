/**
 * graph_search's walk of the entity graphs of some knowledge bases (docs/graph-search.md): the
 * entities a question names are found by their normalised names (every run of up to four of its
 * words; no model is asked), then their neighbourhood is walked breadth first, `depth` relation
 * steps at most and `fanOut` neighbours per entity per step, and the passages that mention the
 * entities reached are the answer, nearest first (nearestChunks). Permission is the
 * caller's: the knowledge bases given here are ones the assistant owner may query.
 */
import type { Kysely } from 'kysely';
import { nameCandidates } from '../document-reading/entity-names.js';
import type { GraphAnswer, GraphQuery, GraphStep } from '../pipeline/plugin-contract/ports.js';
import {
  chunksMentioning,
  findEntities,
  findEntitiesNamed,
  relationsOfEntity,
  type GraphEntityRow,
  type MentionedChunk,
} from '../store/entity-graph-repository.js';
import type { Database } from '../store/schema.js';

/** Relations read per entity per step: more than the fan-out, so neighbours already reached do not leave it short. */
const RELATIONS_READ_PER_FAN_OUT = 3;

type WalkBounds = Pick<GraphQuery, 'question' | 'depth' | 'fanOut' | 'passages'>;

/** The neighbours of one entity a step follows: new ones only, at most `fanOut`, with the relation that leads to each. */
async function nextNeighbours(
  db: Kysely<Database>,
  entityId: number,
  reached: ReadonlySet<number>,
  fanOut: number,
): Promise<Array<{ neighbourId: number; label: string; forward: boolean }>> {
  const edges = await relationsOfEntity(db, entityId, fanOut * RELATIONS_READ_PER_FAN_OUT);
  const taken = new Map<number, { neighbourId: number; label: string; forward: boolean }>();
  for (const edge of edges) {
    const forward = edge.fromEntityId === entityId;
    const neighbourId = forward ? edge.toEntityId : edge.fromEntityId;
    if (reached.has(neighbourId) || taken.has(neighbourId)) continue;
    if (taken.size >= fanOut) break;
    taken.set(neighbourId, { neighbourId, label: edge.label, forward });
  }
  return [...taken.values()];
}

/**
 * The passages of the walk, nearest first: those mentioning the question's own entities, then
 * those mentioning entities one step away, and so on; within a level, those naming the most first.
 */
async function nearestChunks(db: Kysely<Database>, levels: readonly number[][], passages: number): Promise<MentionedChunk[]> {
  const kept = new Map<number, MentionedChunk>();
  for (const level of levels) {
    if (kept.size >= passages) break;
    for (const chunk of await chunksMentioning(db, level, passages))
      if (kept.size < passages && !kept.has(chunk.id)) kept.set(chunk.id, chunk);
  }
  return [...kept.values()];
}

export async function walkEntityGraph(db: Kysely<Database>, knowledgeBaseIds: readonly number[], query: WalkBounds): Promise<GraphAnswer> {
  const seeds = await findEntitiesNamed(db, knowledgeBaseIds, nameCandidates(query.question), query.fanOut);
  const entities = new Map<number, GraphEntityRow>(seeds.map((entity) => [entity.id, entity]));
  const order = seeds.map((entity) => entity.id);
  const steps: GraphStep[] = [];
  /** The entities reached within each depth, for ranking the passages nearest first. */
  const levels = [[...order]];
  let frontier = order;
  for (let depth = 1; depth <= query.depth && frontier.length > 0; depth += 1) {
    const found: Array<{ fromId: number; neighbourId: number; label: string; forward: boolean }> = [];
    const reached = new Set(order);
    for (const entityId of frontier)
      for (const neighbour of await nextNeighbours(db, entityId, reached, query.fanOut)) {
        reached.add(neighbour.neighbourId);
        found.push({ fromId: entityId, ...neighbour });
      }
    for (const row of await findEntities(
      db,
      found.map((step) => step.neighbourId),
    ))
      entities.set(row.id, row);
    for (const step of found) {
      const [from, to] = step.forward ? [step.fromId, step.neighbourId] : [step.neighbourId, step.fromId];
      steps.push({ from: entities.get(from)!.display_name, label: step.label, to: entities.get(to)!.display_name, depth });
    }
    frontier = found.map((step) => step.neighbourId);
    order.push(...frontier);
    levels.push([...order]);
  }
  const chunks = await nearestChunks(db, levels, query.passages);
  return {
    found: seeds.map((entity) => ({ name: entity.display_name, type: entity.type })),
    steps,
    reached: order.length,
    hits: chunks.map((chunk) => ({
      text: chunk.text,
      // The share of the walk's entities the passage names, kept in (0, 1).
      similarity: chunk.entityCount / (chunk.entityCount + 1),
      metadata: {
        ...chunk.metadata,
        knowledge_base_id: chunk.knowledgeBaseId,
        document_id: chunk.documentId,
        chunk_index: chunk.chunkIndex,
      },
    })),
  };
}
