/**
 * Ingestion jobs a runner holds, for the lease suites. Either a runner really holds one: a server
 * whose leases last an hour (so only the test, never the clock, ends one) takes the job of a
 * document uploaded to a knowledge base embedded through the gated embedding fake, and waits at
 * its gate. Or one is written straight into the store, a document being processed and its job
 * mid-way, leased to a named owner: work a runner the test cannot start (a dead process, another
 * host) left behind, which no upload through the API can produce.
 */
import type { Kysely } from 'kysely';
import { expect } from 'vitest';
import type { Database } from '../../src/store/schema.js';
import { uploadDocument } from './knowledge-uploads.js';
import { request } from './test-server.js';

/** A server's settings: a quick ingestion poll, hour-long leases, and embeddings asked of the fake at `embeddingsBaseUrl`. */
export function hourLeaseEnvironment(embeddingsBaseUrl: string, apiKey: string): Record<string, string> {
  return {
    INGESTION_POLL_MS: '20',
    INGESTION_LEASE_MS: String(3_600_000),
    OPENAI_API_KEY: apiKey,
    OPENAI_BASE_URL: embeddingsBaseUrl,
  };
}

export interface HeldDocument {
  knowledgeBaseId: number;
  documentId: number;
  jobId: number;
}

/**
 * Creates a knowledge base embedded with OpenAI's model, which hourLeaseEnvironment sends to the
 * gated fake, and uploads one document to it; the server's runner then takes its job.
 */
export async function uploadHeldDocument(
  server: { baseUrl: string },
  token: string,
  document: { knowledgeBaseName: string; fileName: string; content: string },
): Promise<HeldDocument> {
  const created = await request(server, 'POST', '/api/knowledge-bases', {
    token,
    body: { name: document.knowledgeBaseName, embeddings: { connector: 'openai', model: 'text-embedding-3-small' } },
  });
  expect(created.status, created.text).toBe(201);
  const knowledgeBaseId = created.body.id as number;
  const uploaded = await uploadDocument(server, token, knowledgeBaseId, document.fileName, document.content);
  expect(uploaded.status, uploaded.text).toBe(202);
  return { knowledgeBaseId, documentId: uploaded.body.document_id as number, jobId: uploaded.body.job_id as number };
}

export interface HeldIngestionJob {
  knowledgeBaseId: number;
  fileName: string;
  /** How often a runner claimed it in all. */
  attempts: number;
  /** How often since it was queued, which the attempts cap counts; the column's default when absent. */
  attemptsSinceQueued?: number;
  /** The runner's name, as `host:pid:suffix`. */
  leaseOwner: string;
  leaseExpiresAt: string;
}

export async function insertHeldIngestionJob(db: Kysely<Database>, job: HeldIngestionJob): Promise<{ documentId: number; jobId: number }> {
  const now = new Date().toISOString();
  const document = await db
    .insertInto('kb_documents')
    .values({
      knowledge_base_id: job.knowledgeBaseId,
      file_name: job.fileName,
      content_type: 'text/plain',
      size_bytes: 4,
      source_url: null,
      status: 'processing',
      error: null,
      chunk_count: 0,
      page_count: null,
      metadata: '{}',
      created_at: now,
      updated_at: now,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  const inserted = await db
    .insertInto('ingestion_jobs')
    .values({
      knowledge_base_id: job.knowledgeBaseId,
      document_id: document.id,
      status: 'processing',
      progress_current: 1,
      progress_total: 4,
      message: 'Extracting the text.',
      error: null,
      attempts: job.attempts,
      ...(job.attemptsSinceQueued !== undefined && { attempts_since_queued: job.attemptsSinceQueued }),
      lease_owner: job.leaseOwner,
      lease_expires_at: job.leaseExpiresAt,
      created_at: now,
      updated_at: now,
      finished_at: null,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return { documentId: document.id, jobId: inserted.id };
}
