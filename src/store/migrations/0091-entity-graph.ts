/**
 * Migration 0091: the entity graph of a knowledge base (docs/graph-search.md). `graph_enabled`
 * turns the graph stage of ingestion on for one knowledge base (off for every existing one).
 * Entities are kept once per knowledge base by their normalised name; a mention ties an entity to
 * the chunk it was read from, and a relation names the chunk that stated it, so deleting a chunk
 * (re-ingesting or deleting its document) deletes its mentions and relations by cascade. Entities
 * left without a mention are removed by the application in the same transaction.
 */
import { type Kysely, type Migration } from 'kysely';
import type { Dialect } from '../dialect.js';
import { withIdColumn } from './id-column.js';

export function entityGraphMigration(dialect: Dialect): Migration {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .alterTable('knowledge_bases')
        .addColumn('graph_enabled', 'integer', (column) => column.notNull().defaultTo(0))
        .execute();
      await withIdColumn(db.schema.createTable('kb_graph_entities'), dialect)
        .addColumn('knowledge_base_id', 'integer', (column) => column.notNull().references('knowledge_bases.id').onDelete('cascade'))
        .addColumn('normalized_name', 'text', (column) => column.notNull())
        .addColumn('display_name', 'text', (column) => column.notNull())
        .addColumn('type', 'text', (column) => column.notNull())
        .addUniqueConstraint('kb_graph_entities_name_unique', ['knowledge_base_id', 'normalized_name'])
        .execute();
      await db.schema
        .createTable('kb_graph_mentions')
        .addColumn('entity_id', 'integer', (column) => column.notNull().references('kb_graph_entities.id').onDelete('cascade'))
        .addColumn('chunk_id', 'integer', (column) => column.notNull().references('kb_chunks.id').onDelete('cascade'))
        .addColumn('knowledge_base_id', 'integer', (column) => column.notNull())
        .addPrimaryKeyConstraint('kb_graph_mentions_key', ['entity_id', 'chunk_id'])
        .execute();
      await db.schema.createIndex('kb_graph_mentions_chunk_index').on('kb_graph_mentions').column('chunk_id').execute();
      await withIdColumn(db.schema.createTable('kb_graph_relations'), dialect)
        .addColumn('knowledge_base_id', 'integer', (column) => column.notNull())
        .addColumn('from_entity_id', 'integer', (column) => column.notNull().references('kb_graph_entities.id').onDelete('cascade'))
        .addColumn('to_entity_id', 'integer', (column) => column.notNull().references('kb_graph_entities.id').onDelete('cascade'))
        .addColumn('label', 'text', (column) => column.notNull())
        .addColumn('chunk_id', 'integer', (column) => column.notNull().references('kb_chunks.id').onDelete('cascade'))
        .execute();
      await db.schema.createIndex('kb_graph_relations_from_index').on('kb_graph_relations').column('from_entity_id').execute();
      await db.schema.createIndex('kb_graph_relations_to_index').on('kb_graph_relations').column('to_entity_id').execute();
      await db.schema.createIndex('kb_graph_relations_chunk_index').on('kb_graph_relations').column('chunk_id').execute();
    },
  };
}
