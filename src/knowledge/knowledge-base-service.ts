/**
 * Knowledge bases: create, list, read, change (including sharing with the organization), delete
 * with everything in them, and query them with LAMB's contract: by full text always, and by
 * embeddings (vector, or hybrid fused by reciprocal rank) when the knowledge base has a model.
 * Also builds the search port the pipeline's `simple_rag` uses, bound to an assistant owner so it
 * reaches only what they may read, or their organization's external LAMB knowledge-base server.
 */
import type { Kysely } from 'kysely';
import type { CallContext } from '../auth/call-context.js';
import type { Identity } from '../auth/identity.js';
import { knowledgeBaseListScope, requireAssistantCreation, type KnowledgeBaseAction } from '../auth/permissions.js';
import { AppError } from '../errors/app-error.js';
import type { FileStorage } from '../files/file-storage.js';
import { rankChunks, type RetrievalMode } from '../retrieval/chunk-ranking.js';
import type { FullTextRanking } from '../retrieval/full-text-ranking.js';
import { resolveChunkingOptions } from '../document-reading/chunking.js';
import { searchLanguageOfTag } from '../store/text-analysis.js';
import { refusingWithAppError } from '../ingestion/reading-refusals.js';
import type { KnowledgeBaseInput, KnowledgeBasePatch, KnowledgeBaseView, QueryAnswer, QueryInput } from './knowledge-base-schemas.js';
import { walkEntityGraph } from './entity-graph-search.js';
import { loadKnowledgeBase } from './knowledge-base-access.js';
import { canonicalLanguage, knowledgeBaseIdOf, knowledgeBaseView } from './knowledge-base-view.js';
import { queryExternalKnowledgeServer, type ExternalKnowledgeServer } from '../retrieval/external-knowledge-server.js';
import { embeddingChoiceOf, type Embedder, type EmbeddingAttribution } from '../retrieval/organization-embedder.js';
import type { KnowledgeHit, KnowledgeSearch } from '../pipeline/plugin-contract/ports.js';
import { appendAuditEntry, type AuditEntry } from '../store/audit-log-repository.js';
import { auditEntryOf } from '../auth/call-context.js';
import type { ChunkHit } from '../store/chunk-search-repository.js';
import type { VectorBackend } from '../store/chunk-vector-repository.js';
import type { Dialect } from '../store/dialect.js';
import { listDocuments } from '../store/knowledge-documents-repository.js';
import {
  deleteKnowledgeBaseContents,
  findKnowledgeBase,
  findKnowledgeBaseRow,
  insertKnowledgeBase,
  listKnowledgeBases,
  updateKnowledgeBase,
  type KnowledgeBaseRecord,
  type KnowledgeBaseRow,
} from '../store/knowledge-repository.js';
import { samplePassages, type SampledPassage } from '../store/knowledge-passage-repository.js';
import type { Database } from '../store/schema.js';
import type { PageQuery } from '../validation/page-query-schema.js';

const DEFAULT_TOP_K = 5;

export interface KnowledgeBaseServiceOptions {
  db: Kysely<Database>;
  dialect: Dialect;
  vectorBackend: VectorBackend;
  fullTextRanking?: FullTextRanking; // FULL_TEXT_RERANK_CANDIDATES, FULL_TEXT_QUERY_EXPANSION
  /** The stored documents (blobs under `knowledge/<id>/`), removed with their knowledge base. */
  documentFiles?: FileStorage;
  /** Embeds query texts; without it, knowledge bases are searched by full text only. */
  embedder?: Embedder;
  /** The organization's external LAMB knowledge-base server, when it names one. */
  knowledgeServerFor?(organizationId: number): Promise<ExternalKnowledgeServer | undefined>;
  /** KB_SERVER_TIMEOUT_MS; required, so the setting's default is the only one. */
  knowledgeServerTimeoutMilliseconds: number;
  /** KB_SERVER_RESPONSE_MAX_BYTES; required for the same reason. */
  knowledgeServerResponseBytesMaximum: number;
  /** The organization's small fast model, when it names one: an entity graph needs it (docs/graph-search.md). */
  smallFastModelFor?(organizationId: number): Promise<{ connector: string; model: string } | undefined>;
}

/** What ranking a knowledge base's chunks needs: the query, how many, and how (unset: what the knowledge base supports best). */
interface RankQuery {
  text: string;
  topK: number;
  mode?: RetrievalMode;
  signal?: AbortSignal;
  /** Whom the query's embedding is counted to (docs/usage.md). */
  attribution: EmbeddingAttribution;
}

/** A search: a ranking whose hits below the threshold are left out. */
interface SearchQuery extends RankQuery {
  threshold: number;
}

/** A passage sample reads the first chunks of this many documents, so it stays two small reads. */
const SAMPLE_DOCUMENTS_MAXIMUM = 20;
const SAMPLE_CHUNKS_PER_DOCUMENT = 3;

export class KnowledgeBaseService {
  private readonly db: Kysely<Database>;

  constructor(private readonly options: KnowledgeBaseServiceOptions) {
    this.db = options.db;
  }

  /** The knowledge base's row, if `identity` may do `action` to it: only its view needs its counts. */
  private async load(identity: Identity, id: number, action: KnowledgeBaseAction): Promise<KnowledgeBaseRow> {
    return loadKnowledgeBase(this.db, { identity, id, action, find: findKnowledgeBaseRow });
  }

  /** The views of these records, each knowing whether its organization can build an entity graph. */
  private async views(records: readonly KnowledgeBaseRecord[]): Promise<KnowledgeBaseView[]> {
    const available = new Map<number, boolean>();
    for (const organizationId of new Set(records.map((record) => record.organization_id)))
      available.set(organizationId, (await this.options.smallFastModelFor?.(organizationId)) !== undefined);
    return records.map((record) => knowledgeBaseView(record, available.get(record.organization_id)!));
  }

  private async view(record: KnowledgeBaseRecord): Promise<KnowledgeBaseView> {
    return (await this.views([record]))[0]!;
  }

  /** Refuses to turn the entity graph on where no small fast model could build it. */
  private async requireGraphModel(organizationId: number, graph: { enabled: boolean } | undefined): Promise<void> {
    if (graph?.enabled === true && (await this.options.smallFastModelFor?.(organizationId)) === undefined)
      throw new AppError('no_small_fast_model', undefined, { param: 'graph.enabled' });
  }

  private audit(
    context: CallContext,
    record: { id: number; organization_id: number },
    action: string,
    details?: AuditEntry['details'],
  ): AuditEntry {
    return auditEntryOf(context, { type: 'knowledge_base', id: record.id, organizationId: record.organization_id }, action, details);
  }

  async create(context: CallContext, input: KnowledgeBaseInput): Promise<KnowledgeBaseView> {
    requireAssistantCreation(context.identity);
    const name = input.name.trim();
    if (name === '') throw new AppError('invalid_body', 'The name must not be empty.', { param: 'name' });
    // The chunker's own rule, so a knowledge base can never hold settings its documents would fail on.
    const { chunkSize, chunkOverlap } = refusingWithAppError(() =>
      resolveChunkingOptions({ chunkSize: input.chunk_size, chunkOverlap: input.chunk_overlap }),
    );
    const organizationId = context.identity.organizationId;
    const language = canonicalLanguage(input.language);
    await this.requireGraphModel(organizationId, input.graph);
    const id = await this.db.transaction().execute(async (transaction) => {
      const insertedId = await insertKnowledgeBase(transaction, {
        ownerId: context.identity.userId,
        organizationId,
        name,
        description: input.description ?? '',
        language,
        searchLanguage: input.search_language ?? searchLanguageOfTag(language),
        chunkSize,
        chunkOverlap,
        graphEnabled: input.graph?.enabled === true,
        ...(input.embeddings !== undefined && { embedding: input.embeddings }),
      });
      await appendAuditEntry(
        transaction,
        this.audit(context, { id: insertedId, organization_id: organizationId }, 'knowledge_base.create'),
      );
      return insertedId;
    });
    return this.view((await findKnowledgeBase(this.db, id))!);
  }

  async list(context: CallContext, query: PageQuery): Promise<{ items: KnowledgeBaseView[]; total: number }> {
    const page = await listKnowledgeBases(this.db, knowledgeBaseListScope(context.identity), {
      limit: query.limit,
      offset: query.offset,
      search: query.q,
    });
    return { items: await this.views(page.items), total: page.total };
  }

  async get(context: CallContext, id: number): Promise<KnowledgeBaseView> {
    return this.view(await loadKnowledgeBase(this.db, { identity: context.identity, id, action: 'view', find: findKnowledgeBase }));
  }

  async update(context: CallContext, id: number, patch: KnowledgeBasePatch): Promise<KnowledgeBaseView> {
    const record = await this.load(context.identity, id, 'update');
    const name = patch.name?.trim();
    if (name === '') throw new AppError('invalid_body', 'The name must not be empty.', { param: 'name' });
    const language = patch.language === undefined ? undefined : canonicalLanguage(patch.language);
    await this.requireGraphModel(record.organization_id, patch.graph);
    await this.db.transaction().execute(async (transaction) => {
      await updateKnowledgeBase(transaction, record, {
        ...(name !== undefined && { name }),
        ...(patch.description !== undefined && { description: patch.description }),
        ...(patch.visibility !== undefined && { visibility: patch.visibility }),
        ...(language !== undefined && { language }),
        // A new language: the search index is rebuilt in it by the reindex job, from the first chunk.
        ...(patch.search_language !== undefined &&
          patch.search_language !== record.search_language && {
            search_language: patch.search_language,
            reindex_cursor: 0,
            reindex_done: 0,
          }),
        ...(patch.graph !== undefined && { graph_enabled: patch.graph.enabled ? 1 : 0 }),
      });
      await appendAuditEntry(transaction, this.audit(context, record, 'knowledge_base.update', { fields: Object.keys(patch).sort() }));
    });
    return this.view((await findKnowledgeBase(this.db, id))!);
  }

  async delete(context: CallContext, id: number): Promise<void> {
    const record = await this.load(context.identity, id, 'delete');
    await this.db.transaction().execute(async (transaction) => {
      await deleteKnowledgeBaseContents(transaction, record);
      await appendAuditEntry(transaction, this.audit(context, record, 'knowledge_base.delete'));
    });
    // The deletion is done once its rows are: a folder that another request was writing into as
    // it went (ENOTEMPTY) must not turn that into a 500. What stays is swept at start-up.
    await this.options.documentFiles?.removeOwner(record.id).catch(() => undefined);
  }

  /**
   * Full text alone, vectors alone, or both fused. Hybrid is the default for a knowledge base
   * with embeddings; if the query cannot be embedded (provider down), it falls back to full text
   * rather than failing the learner's request. Asking for `vector` explicitly surfaces the error.
   */
  private async rank(record: KnowledgeBaseRow, query: RankQuery): Promise<{ hits: ChunkHit[]; mode: RetrievalMode }> {
    const { text: queryText, topK, signal } = query;
    const { embedder } = this.options;
    const choice = embeddingChoiceOf(record);
    const mode = query.mode ?? (choice === undefined ? 'full_text' : 'hybrid');
    const byFullText = async () => ({
      hits: await rankChunks(this.options, [record], { mode: 'full_text', text: queryText }, topK),
      mode: 'full_text' as const,
    });
    if (mode === 'full_text') return byFullText();
    if (choice === undefined || embedder === undefined) {
      throw new AppError('invalid_body', `Knowledge base ${record.id} has no embedding model, so it can only be searched by full text.`, {
        param: 'plugin_params.mode',
      });
    }
    let embedding: Float32Array;
    try {
      [embedding] = (await embedder({
        organizationId: record.organization_id,
        choice,
        texts: [queryText],
        attribution: query.attribution,
        signal,
      })) as [Float32Array];
    } catch (error) {
      if (mode === 'vector' || signal?.aborted) throw error;
      return byFullText();
    }
    return { hits: await rankChunks(this.options, [record], { mode, text: queryText, embedding }, topK), mode };
  }

  private async search(identity: Identity, id: number, query: SearchQuery): Promise<{ hits: KnowledgeHit[]; mode: RetrievalMode }> {
    const record = await this.load(identity, id, 'query');
    const ranked = await this.rank(record, query);
    const hits = ranked.hits
      .filter((hit) => hit.similarity >= query.threshold)
      .map((hit) => ({
        text: hit.text,
        similarity: hit.similarity,
        metadata: { ...hit.metadata, knowledge_base_id: hit.knowledgeBaseId, document_id: hit.documentId, chunk_index: hit.chunkIndex },
      }));
    return { hits, mode: ranked.mode };
  }

  async query(context: CallContext, id: number, input: QueryInput): Promise<QueryAnswer> {
    const started = performance.now();
    const { hits, mode } = await this.search(context.identity, id, {
      text: input.query_text,
      topK: input.top_k ?? DEFAULT_TOP_K,
      threshold: input.threshold ?? 0,
      attribution: { userId: context.identity.userId, assistantId: 0, requestId: context.requestId },
      ...(input.plugin_params?.mode !== undefined && { mode: input.plugin_params.mode }),
    });
    return {
      results: hits.map((hit) => ({ similarity: hit.similarity, data: hit.text, metadata: hit.metadata })),
      count: hits.length,
      timing: { total_ms: Math.round((performance.now() - started) * 10) / 10 },
      query: input.query_text,
      mode,
    };
  }

  /**
   * A sample of the passages of the collections the owner may query, at most `charactersMaximum`
   * characters in all, for proposing test cases (docs/assistant-tests.md). A collection the owner
   * may not query is left out, and so is everything when an external server holds the collections.
   */
  async passageSample(owner: Identity, collectionIds: readonly string[], charactersMaximum: number): Promise<SampledPassage[]> {
    if (charactersMaximum === 0 || (await this.options.knowledgeServerFor?.(owner.organizationId)) !== undefined) return [];
    const readable: number[] = [];
    for (const collectionId of new Set(collectionIds).values()) {
      const id = knowledgeBaseIdOf(collectionId);
      if (
        id !== undefined &&
        (await this.load(owner, id, 'query').then(
          () => true,
          () => false,
        ))
      )
        readable.push(id);
    }
    const sampled = await samplePassages(this.db, {
      knowledgeBaseIds: readable,
      documentsMaximum: SAMPLE_DOCUMENTS_MAXIMUM,
      chunksPerDocument: SAMPLE_CHUNKS_PER_DOCUMENT,
    });
    const kept: SampledPassage[] = [];
    let left = charactersMaximum;
    for (const passage of sampled) {
      if (left <= 0) break;
      kept.push({ file_name: passage.file_name, text: passage.text.slice(0, left) });
      left -= passage.text.length;
    }
    return kept;
  }

  /**
   * The pipeline's search port for an assistant owner. When the owner's organization names an
   * external LAMB knowledge-base server, collections are looked up there, where its API key is
   * the permission; otherwise each collection is checked against the owner on every query.
   */
  searcherFor(owner: Identity, attribution?: EmbeddingAttribution): KnowledgeSearch {
    // Without a request (checking an import's references), a query's embedding is the owner's own.
    const counted = attribution ?? { userId: owner.userId, assistantId: 0, requestId: null };
    const localId = (collectionId: string): number => {
      const id = knowledgeBaseIdOf(collectionId);
      if (id === undefined) throw new AppError('not_found', `Knowledge base ${collectionId} not found.`);
      return id;
    };
    return {
      listDocuments: async (collectionId) => {
        if ((await this.options.knowledgeServerFor?.(owner.organizationId)) !== undefined) {
          throw new AppError(
            'invalid_parameter',
            "Listing documents is not available for the organization's external knowledge-base server.",
          );
        }
        const record = await this.load(owner, localId(collectionId), 'query');
        return (await listDocuments(this.db, record.id)).map((row) => ({
          title: row.file_name,
          type: row.content_type,
          pages: row.page_count,
          chunks: row.chunk_count,
          bytes: row.size_bytes,
          status: row.status,
          added_at: row.created_at,
        }));
      },
      graph: async (query) => {
        if ((await this.options.knowledgeServerFor?.(owner.organizationId)) !== undefined)
          throw new AppError('invalid_parameter', "Graph search is not available for the organization's external knowledge-base server.");
        const ids = await Promise.all(query.collectionIds.map(async (id) => (await this.load(owner, localId(id), 'query')).id));
        return walkEntityGraph(this.db, ids, query);
      },
      query: async ({ collectionId, queryText, topK, threshold, signal }) => {
        const server = await this.options.knowledgeServerFor?.(owner.organizationId);
        if (server !== undefined) {
          const hits = await queryExternalKnowledgeServer(
            server,
            collectionId,
            { queryText, topK, threshold },
            {
              timeoutMilliseconds: this.options.knowledgeServerTimeoutMilliseconds,
              responseBytesMaximum: this.options.knowledgeServerResponseBytesMaximum,
              ...(signal !== undefined && { signal }),
            },
          );
          // A server's passage names its collection as a local one does, so that its source reads
          // "knowledge base <id>" when the server gave no file name, rather than "undefined".
          return hits.map((hit) => ({ ...hit, metadata: { knowledge_base_id: collectionId, ...hit.metadata } }));
        }
        return (
          await this.search(owner, localId(collectionId), {
            text: queryText,
            topK,
            threshold,
            attribution: counted,
            ...(signal !== undefined && { signal }),
          })
        ).hits;
      },
    };
  }
}
