/**
 * Shows a cited passage in its document (the passage and its neighbours), or the document's whole
 * extracted text a page of passages at a time, to whoever may read the knowledge base, or may chat
 * with the assistant (named by the caller) whose tools search it. The decision is the permission
 * module's (decidePassageReading); this service gathers its facts.
 */
import type { Kysely } from 'kysely';
import { identityOf } from '../auth/authenticator.js';
import type { CallContext } from '../auth/call-context.js';
import { decidePassageReading, requireDecision, type PassageThroughAssistantFacts } from '../auth/permissions.js';
import { assistantFacts, snapshotOf } from '../assistants/assistant-view.js';
import { AppError } from '../errors/app-error.js';
import type { AssistantSnapshot } from '../pipeline/assistant-metadata/assistant-snapshot.js';
import { findAssistant } from '../store/assistants-repository.js';
import { findKnowledgeBaseRow } from '../store/knowledge-repository.js';
import {
  findPassageDocument,
  listPassagePage,
  listPassageWindow,
  type PassageDocument,
  type StoredPassage,
} from '../store/knowledge-passage-repository.js';
import type { Database } from '../store/schema.js';
import { findUserById } from '../store/users-repository.js';
import { knowledgeBaseFacts } from './knowledge-base-access.js';
import {
  PASSAGE_NEIGHBOURS,
  type DocumentPassagePage,
  type DocumentPassagesQuery,
  type PassageInContext,
} from './knowledge-passage-schemas.js';

/** Which document, and the assistant through which a learner reads it when they may not view the knowledge base. */
export interface DocumentReadRequest {
  knowledgeBaseId: number;
  documentId: number;
  assistantId?: number;
}

export interface PassageRequest extends DocumentReadRequest {
  chunkIndex: number;
}

/** A page of a document's passages: limit and offset filled in by the route. */
export type DocumentPassagesRequest = DocumentReadRequest & Required<Pick<DocumentPassagesQuery, 'limit' | 'offset'>>;

/** The knowledge bases an assistant's tools search: its classic collections and every enabled tool's `collections`. */
export function searchedKnowledgeBaseIds(assistant: AssistantSnapshot): Set<string> {
  const ids = new Set(assistant.ragCollections);
  for (const tool of assistant.metadata.tools ?? []) {
    const collections: unknown = tool.config.collections;
    if (!tool.enabled || !Array.isArray(collections)) continue;
    for (const id of collections) if (typeof id === 'string') ids.add(id);
  }
  return ids;
}

function passageView(stored: StoredPassage): PassageInContext['passages'][number] {
  let metadata: Record<string, unknown> = {};
  try {
    metadata = JSON.parse(stored.metadata) as Record<string, unknown>;
  } catch {
    // A chunk whose metadata cannot be read is still shown, without page or section.
  }
  return {
    chunk_index: stored.chunk_index,
    text: stored.text,
    ...(typeof metadata.page === 'number' && Number.isInteger(metadata.page) && { page: metadata.page }),
    ...(typeof metadata.heading === 'string' && metadata.heading.trim() !== '' && { section: metadata.heading }),
  };
}

export class KnowledgePassageService {
  constructor(private readonly db: Kysely<Database>) {}

  private async throughAssistant(
    context: CallContext,
    knowledgeBaseId: number,
    assistantId: number | undefined,
  ): Promise<PassageThroughAssistantFacts | undefined> {
    if (assistantId === undefined) return undefined;
    const record = await findAssistant(this.db, assistantId, context.identity.userId);
    const owner = record === undefined ? undefined : await findUserById(this.db, record.owner_id);
    if (record === undefined || owner === undefined) return undefined;
    return {
      assistant: assistantFacts(record),
      searchesKnowledgeBase: searchedKnowledgeBaseIds(snapshotOf(record)).has(String(knowledgeBaseId)),
      owner: identityOf(owner, 'assistant_owner', 0),
    };
  }

  /** The document and its knowledge base's name, once the permission module has said this caller may read the knowledge base's text. */
  private async readableDocument(
    context: CallContext,
    request: DocumentReadRequest,
  ): Promise<PassageDocument & { knowledgeBaseName: string }> {
    const { knowledgeBaseId, documentId } = request;
    const knowledgeBase = await findKnowledgeBaseRow(this.db, knowledgeBaseId);
    if (!knowledgeBase) throw new AppError('not_found', 'Knowledge base not found.');
    const via = await this.throughAssistant(context, knowledgeBaseId, request.assistantId);
    requireDecision(decidePassageReading(context.identity, knowledgeBaseFacts(knowledgeBase), via), 'Knowledge base');
    const document = await findPassageDocument(this.db, knowledgeBaseId, documentId);
    if (!document) throw new AppError('not_found', 'Document not found.');
    return { ...document, knowledgeBaseName: knowledgeBase.name };
  }

  async passageInContext(context: CallContext, request: PassageRequest): Promise<PassageInContext> {
    const { knowledgeBaseId, documentId, chunkIndex } = request;
    const document = await this.readableDocument(context, request);
    const passages = await listPassageWindow(this.db, {
      knowledgeBaseId,
      documentId,
      firstIndex: Math.max(0, chunkIndex - PASSAGE_NEIGHBOURS),
      lastIndex: chunkIndex + PASSAGE_NEIGHBOURS,
    });
    if (!passages.some((passage) => passage.chunk_index === chunkIndex)) throw new AppError('not_found', 'Passage not found.');
    return {
      knowledge_base_id: knowledgeBaseId,
      knowledge_base_name: document.knowledgeBaseName,
      document_id: document.id,
      file_name: document.file_name,
      chunk_index: chunkIndex,
      chunk_count: document.chunk_count,
      passages: passages.map(passageView),
    };
  }

  /** The document's extracted text, one page of passages in reading order. */
  async documentPassages(context: CallContext, request: DocumentPassagesRequest): Promise<DocumentPassagePage> {
    const document = await this.readableDocument(context, request);
    const { passages, total } = await listPassagePage(this.db, {
      knowledgeBaseId: request.knowledgeBaseId,
      documentId: document.id,
      limit: request.limit,
      offset: request.offset,
    });
    return {
      items: passages.map(passageView),
      total,
      knowledge_base_id: request.knowledgeBaseId,
      document_id: document.id,
      file_name: document.file_name,
      status: document.status,
    };
  }
}
