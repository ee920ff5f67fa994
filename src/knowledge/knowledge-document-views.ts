/** What the API shows of a knowledge base's documents and their ingestion jobs. */
import type { IngestionJobRow } from '../store/ingestion-jobs-repository.js';
import type { KnowledgeDocumentRow } from '../store/knowledge-documents-repository.js';
import type { DocumentView, JobView } from './knowledge-document-schemas.js';

export function documentView(row: KnowledgeDocumentRow & { job_id?: number | null }): DocumentView {
  return {
    id: row.id,
    file_name: row.file_name,
    content_type: row.content_type,
    size_bytes: row.size_bytes,
    page_count: row.page_count,
    status: row.status,
    error: row.error,
    chunk_count: row.chunk_count,
    job_id: row.job_id ?? null,
    source_url: row.source_url,
    last_checked_at: row.last_checked_at,
    refresh_outcome: row.refresh_outcome as DocumentView['refresh_outcome'],
    refresh_error: row.refresh_error,
    refresh_every_seconds: row.refresh_every_seconds,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

export function jobView(row: IngestionJobRow): JobView {
  const total = row.progress_total;
  const percentage = row.status === 'completed' ? 100 : total > 0 ? Math.min(100, Math.round((row.progress_current / total) * 100)) : 0;
  return {
    id: row.id,
    document_id: row.document_id,
    status: row.status,
    progress: { current: row.progress_current, total, percentage, message: row.message },
    error: row.error,
    attempts: row.attempts,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}
