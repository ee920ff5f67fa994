/**
 * The entity graph of a knowledge base (docs/graph-search.md): entities by normalised name, their
 * mentions in chunks and the relations chunks state between them. Writes happen in the ingestion
 * transaction that replaces a document's chunks; mentions and relations go with their chunks by
 * cascade, and removeUnmentionedEntities takes away the entities no chunk mentions any more.
 */
import { sql, type Kysely } from 'kysely';
import type { Database } from './schema.js';

export interface GraphEntityInput {
  normalizedName: string;
  displayName: string;
  type: string;
}

export interface GraphRelationInput {
  /** Normalised names of entities of the same chunk. */
  from: string;
  to: string;
  label: string;
}

/** What one chunk contributes to the graph. */
export interface ChunkGraph {
  chunkId: number;
  entities: readonly GraphEntityInput[];
  relations: readonly GraphRelationInput[];
}

export interface GraphEntityRow {
  id: number;
  knowledge_base_id: number;
  normalized_name: string;
  display_name: string;
  type: string;
}

export interface GraphEdge {
  fromEntityId: number;
  toEntityId: number;
  label: string;
}

/** Rows per INSERT or IN list: well under both dialects' bound-parameter limits. */
const BATCH = 200;

function batches<Item>(items: readonly Item[]): Item[][] {
  const result: Item[][] = [];
  for (let start = 0; start < items.length; start += BATCH) result.push(items.slice(start, start + BATCH));
  return result;
}

/** The ids of the knowledge base's entities of these names, inserting those it lacks (a new entity keeps the first display name and type). */
async function entityIds(
  db: Kysely<Database>,
  knowledgeBaseId: number,
  entities: readonly GraphEntityInput[],
): Promise<Map<string, number>> {
  const unique = [...new Map(entities.map((entity) => [entity.normalizedName, entity])).values()];
  for (const batch of batches(unique))
    await db
      .insertInto('kb_graph_entities')
      .values(
        batch.map((entity) => ({
          knowledge_base_id: knowledgeBaseId,
          normalized_name: entity.normalizedName,
          display_name: entity.displayName,
          type: entity.type,
        })),
      )
      .onConflict((conflict) => conflict.columns(['knowledge_base_id', 'normalized_name']).doNothing())
      .execute();
  const ids = new Map<string, number>();
  for (const batch of batches(unique.map((entity) => entity.normalizedName))) {
    const rows = await db
      .selectFrom('kb_graph_entities')
      .select(['id', 'normalized_name'])
      .where('knowledge_base_id', '=', knowledgeBaseId)
      .where('normalized_name', 'in', batch)
      .execute();
    for (const row of rows) ids.set(row.normalized_name, row.id);
  }
  return ids;
}

/** Adds the chunks' entities, mentions and relations; call inside the transaction that inserted the chunks. */
export async function insertChunkGraphs(db: Kysely<Database>, knowledgeBaseId: number, graphs: readonly ChunkGraph[]): Promise<void> {
  const ids = await entityIds(
    db,
    knowledgeBaseId,
    graphs.flatMap((graph) => graph.entities),
  );
  const mentions = graphs.flatMap((graph) =>
    [...new Set(graph.entities.map((entity) => ids.get(entity.normalizedName)!))].map((entityId) => ({
      entity_id: entityId,
      chunk_id: graph.chunkId,
      knowledge_base_id: knowledgeBaseId,
    })),
  );
  for (const batch of batches(mentions)) await db.insertInto('kb_graph_mentions').values(batch).execute();
  const relations = graphs.flatMap((graph) =>
    graph.relations.map((relation) => ({
      knowledge_base_id: knowledgeBaseId,
      from_entity_id: ids.get(relation.from)!,
      to_entity_id: ids.get(relation.to)!,
      label: relation.label,
      chunk_id: graph.chunkId,
    })),
  );
  for (const batch of batches(relations)) await db.insertInto('kb_graph_relations').values(batch).execute();
}

/** Deletes the knowledge base's entities that no chunk mentions any more (their document was re-ingested or deleted). */
export async function removeUnmentionedEntities(db: Kysely<Database>, knowledgeBaseId: number): Promise<void> {
  await db
    .deleteFrom('kb_graph_entities')
    .where('knowledge_base_id', '=', knowledgeBaseId)
    .where((eb) =>
      eb.not(
        eb.exists(
          eb
            .selectFrom('kb_graph_mentions')
            .select(sql`1`.as('one'))
            .whereRef('kb_graph_mentions.entity_id', '=', 'kb_graph_entities.id'),
        ),
      ),
    )
    .execute();
}

/** Deletes a knowledge base's whole graph (the knowledge base is being deleted). */
export async function deleteKnowledgeBaseGraph(db: Kysely<Database>, knowledgeBaseId: number): Promise<void> {
  await db.deleteFrom('kb_graph_relations').where('knowledge_base_id', '=', knowledgeBaseId).execute();
  await db.deleteFrom('kb_graph_mentions').where('knowledge_base_id', '=', knowledgeBaseId).execute();
  await db.deleteFrom('kb_graph_entities').where('knowledge_base_id', '=', knowledgeBaseId).execute();
}

/** The entities of these knowledge bases whose normalised name is one of `names`, at most `limit`, longest names first. */
export async function findEntitiesNamed(
  db: Kysely<Database>,
  knowledgeBaseIds: readonly number[],
  names: readonly string[],
  limit: number,
): Promise<GraphEntityRow[]> {
  if (knowledgeBaseIds.length === 0 || names.length === 0) return [];
  const found: GraphEntityRow[] = [];
  for (const batch of batches(names))
    found.push(
      ...(await db
        .selectFrom('kb_graph_entities')
        .selectAll()
        .where('knowledge_base_id', 'in', knowledgeBaseIds)
        .where('normalized_name', 'in', batch)
        .execute()),
    );
  return found.sort((a, b) => b.normalized_name.length - a.normalized_name.length || a.id - b.id).slice(0, limit);
}

/** Entities by id (those of a walk's neighbours). */
export async function findEntities(db: Kysely<Database>, ids: readonly number[]): Promise<GraphEntityRow[]> {
  const found: GraphEntityRow[] = [];
  for (const batch of batches(ids))
    found.push(...(await db.selectFrom('kb_graph_entities').selectAll().where('id', 'in', batch).execute()));
  return found;
}

/**
 * The distinct relations touching one entity, either way, at most `limit`, in a stable order
 * (oldest first), so a walk bounded by fan-out always takes the same neighbours.
 */
export async function relationsOfEntity(db: Kysely<Database>, entityId: number, limit: number): Promise<GraphEdge[]> {
  if (limit < 1) return [];
  const rows = await db
    .selectFrom('kb_graph_relations')
    .select(['from_entity_id', 'to_entity_id', 'label'])
    .select((eb) => eb.fn.min('id').as('first_id'))
    .where((eb) => eb.or([eb('from_entity_id', '=', entityId), eb('to_entity_id', '=', entityId)]))
    .groupBy(['from_entity_id', 'to_entity_id', 'label'])
    .orderBy('first_id')
    .limit(limit)
    .execute();
  return rows.map((row) => ({ fromEntityId: row.from_entity_id, toEntityId: row.to_entity_id, label: row.label }));
}

export interface MentionedChunk {
  id: number;
  knowledgeBaseId: number;
  documentId: number;
  chunkIndex: number;
  text: string;
  metadata: Record<string, unknown>;
  /** How many of the asked entities the chunk mentions. */
  entityCount: number;
}

/** The chunks mentioning the most of these entities, at most `limit`, the most first, then in document order. */
export async function chunksMentioning(db: Kysely<Database>, entityIdsFound: readonly number[], limit: number): Promise<MentionedChunk[]> {
  if (entityIdsFound.length === 0 || limit < 1) return [];
  const rows = await db
    .selectFrom('kb_graph_mentions')
    .innerJoin('kb_chunks', 'kb_chunks.id', 'kb_graph_mentions.chunk_id')
    .select([
      'kb_chunks.id',
      'kb_chunks.knowledge_base_id',
      'kb_chunks.document_id',
      'kb_chunks.chunk_index',
      'kb_chunks.text',
      'kb_chunks.metadata',
    ])
    .select((eb) => eb.fn.countAll<number | string>().as('entity_count'))
    .where('kb_graph_mentions.entity_id', 'in', entityIdsFound.slice(0, BATCH))
    .groupBy([
      'kb_chunks.id',
      'kb_chunks.knowledge_base_id',
      'kb_chunks.document_id',
      'kb_chunks.chunk_index',
      'kb_chunks.text',
      'kb_chunks.metadata',
    ])
    .orderBy('entity_count', 'desc')
    .orderBy('kb_chunks.id')
    .limit(limit)
    .execute();
  return rows.map((row) => ({
    id: row.id,
    knowledgeBaseId: row.knowledge_base_id,
    documentId: row.document_id,
    chunkIndex: row.chunk_index,
    text: row.text,
    metadata: JSON.parse(row.metadata) as Record<string, unknown>,
    entityCount: Number(row.entity_count),
  }));
}
