/**
 * The ingestion jobs of one knowledge base changed since a moment, with what an event about each
 * needs from its document (name, chunk count). The job event streams read this on every poll, so
 * every process sees the jobs every other process runs: the store, not a process's memory, is the
 * source of the events.
 */
import type { Kysely } from 'kysely';
import type { Database, DocumentStatus } from './schema.js';

export interface IngestionJobChange {
  id: number;
  document_id: number;
  file_name: string;
  status: DocumentStatus;
  progress_current: number;
  progress_total: number;
  message: string | null;
  error: string | null;
  chunk_count: number;
  created_at: string;
  updated_at: string;
}

export interface IngestionJobChangeQuery {
  knowledgeBaseId: number;
  /** Changes at or after this moment... */
  since: string;
  /** ...and, to read the next page, after this change (ordered by `updated_at`, then id). */
  after?: { updatedAt: string; id: number };
  limit: number;
}

/** A page of the jobs of a knowledge base changed since a moment, oldest change first. */
export async function listIngestionJobChanges(db: Kysely<Database>, query: IngestionJobChangeQuery): Promise<IngestionJobChange[]> {
  const { after } = query;
  return db
    .selectFrom('ingestion_jobs')
    .innerJoin('kb_documents', 'kb_documents.id', 'ingestion_jobs.document_id')
    .select([
      'ingestion_jobs.id',
      'ingestion_jobs.document_id',
      'kb_documents.file_name',
      'ingestion_jobs.status',
      'ingestion_jobs.progress_current',
      'ingestion_jobs.progress_total',
      'ingestion_jobs.message',
      'ingestion_jobs.error',
      'kb_documents.chunk_count',
      'ingestion_jobs.created_at',
      'ingestion_jobs.updated_at',
    ])
    .where('ingestion_jobs.knowledge_base_id', '=', query.knowledgeBaseId)
    .where('ingestion_jobs.updated_at', '>=', query.since)
    .$if(after !== undefined, (select) =>
      select.where((eb) =>
        eb.or([
          eb('ingestion_jobs.updated_at', '>', after!.updatedAt),
          eb.and([eb('ingestion_jobs.updated_at', '=', after!.updatedAt), eb('ingestion_jobs.id', '>', after!.id)]),
        ]),
      ),
    )
    .orderBy('ingestion_jobs.updated_at')
    .orderBy('ingestion_jobs.id')
    .limit(query.limit)
    .execute();
}
