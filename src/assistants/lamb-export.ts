/**
 * Assistant export and import documents in LAMB's format (DESIGN §7), so a LAMB user can bring
 * their assistants over and LAMB's own tools can read what Merino exports. An export is LAMB's
 * flat assistant row plus `merino_export_version`; import reads that, a LAMB row, or a LAMB row
 * wrapped as `{assistant: {...}}`, and undoes LAMB's name mangling only for LAMB documents.
 */

import { AppError } from '../errors/app-error.js';
import { normalizeMetadata, type AssistantMetadata } from '../pipeline/assistant-metadata/metadata-normalizer.js';

export const MERINO_EXPORT_VERSION = 1;

/** LAMB's retrieval default, used when an imported document carries no usable top_k. */
export const DEFAULT_RAG_TOP_K = 3;

export interface ExportableAssistant {
  id: number;
  name: string;
  description: string;
  ownerEmail: string;
  systemPrompt: string;
  promptTemplate: string;
  metadata: AssistantMetadata;
  ragCollections: string[];
  ragTopK: number;
  published: boolean;
  /** ISO-8601 */
  publishedAt: string | null;
  /** ISO-8601 */
  createdAt: string;
  /** ISO-8601 */
  updatedAt: string;
}

export interface ImportedAssistant {
  name: string;
  description: string;
  systemPrompt: string;
  promptTemplate: string;
  metadata: AssistantMetadata;
  ragCollections: string[];
  ragTopK: number;
}

// ---------------------------------------------------------------------------------------------
// Export
// ---------------------------------------------------------------------------------------------

export function toExportDocument(assistant: ExportableAssistant): Record<string, unknown> {
  const metadataJson = JSON.stringify(assistant.metadata);
  const publicationName = assistant.published ? `assistant_${assistant.id}` : null;
  return {
    id: assistant.id,
    name: assistant.name,
    description: assistant.description,
    owner: assistant.ownerEmail,
    // LAMB renamed api_callback to metadata but still reads both, so both carry the same string.
    api_callback: metadataJson,
    metadata: metadataJson,
    system_prompt: assistant.systemPrompt,
    prompt_template: assistant.promptTemplate,
    RAG_endpoint: '',
    RAG_Top_k: assistant.ragTopK,
    RAG_collections: assistant.ragCollections.join(','),
    pre_retrieval_endpoint: '',
    post_retrieval_endpoint: '',
    published: assistant.published,
    published_at: assistant.published && assistant.publishedAt !== null ? toUnixSeconds(assistant.publishedAt, 'publishedAt') : null,
    group_id: publicationName,
    group_name: publicationName,
    oauth_consumer_name: assistant.published ? assistant.name : null,
    created_at: toUnixSeconds(assistant.createdAt, 'createdAt'),
    updated_at: toUnixSeconds(assistant.updatedAt, 'updatedAt'),
    merino_export_version: MERINO_EXPORT_VERSION,
  };
}

function toUnixSeconds(isoTimestamp: string, field: string): number {
  const milliseconds = Date.parse(isoTimestamp);
  // Our own stored timestamps are always valid, so a bad one is a bug, not a client error.
  if (Number.isNaN(milliseconds)) {
    throw new AppError('internal_error', undefined, { details: { reason: `${field} is not an ISO-8601 timestamp` } });
  }
  return Math.floor(milliseconds / 1000);
}

// ---------------------------------------------------------------------------------------------
// Import
// ---------------------------------------------------------------------------------------------

/**
 * Reads an export document into the fields an import may set. Publication, ids, owner and
 * timestamps are deliberately dropped: an imported assistant is a new, unpublished assistant of
 * whoever imports it.
 */
export function fromImportDocument(document: unknown): ImportedAssistant {
  const row = unwrapRow(document);
  const fromMerino = isMerinoExport(row);
  return {
    name: fromMerino ? readMerinoName(row.name) : readLambName(row.name),
    description: readOptionalText(row, 'description'),
    systemPrompt: readOptionalText(row, 'system_prompt'),
    promptTemplate: readOptionalText(row, 'prompt_template'),
    metadata: readMetadata(row),
    ragCollections: readCollections(row.RAG_collections),
    ragTopK: readTopK(row.RAG_Top_k),
  };
}

function unwrapRow(document: unknown): Record<string, unknown> {
  if (!isPlainRecord(document)) {
    throw new AppError('invalid_import', 'The import document must be a JSON object holding one assistant.');
  }
  // Some LAMB versions export `{assistant: {...}}`; a flat row always has its own name.
  if (!('name' in document) && isPlainRecord(document.assistant)) return document.assistant;
  return document;
}

function isMerinoExport(row: Record<string, unknown>): boolean {
  if (!('merino_export_version' in row)) return false;
  if (row.merino_export_version !== MERINO_EXPORT_VERSION) {
    throw new AppError(
      'invalid_import',
      `merino_export_version ${JSON.stringify(row.merino_export_version)} is not supported; this Merino reads version ${MERINO_EXPORT_VERSION}.`,
      {
        param: 'merino_export_version',
      },
    );
  }
  return true;
}

/** Merino writes names unchanged, so they are read back unchanged. */
function readMerinoName(value: unknown): string {
  if (typeof value !== 'string' || value.trim() === '') throw missingName();
  return value;
}

/**
 * LAMB stores `<creator id>_<name>` and its sanitizer replaced spaces with underscores. A name that
 * still holds a space was never sanitized, so its underscores are real and stay.
 */
function readLambName(value: unknown): string {
  if (typeof value !== 'string') throw missingName();
  const withoutPrefix = value.replace(/^[0-9]+_/, '');
  const readable = withoutPrefix.includes(' ') ? withoutPrefix : withoutPrefix.replace(/_/g, ' ');
  const name = readable.trim();
  if (name === '') throw missingName();
  return name;
}

function missingName(): AppError {
  return new AppError('invalid_import', 'The import document has no assistant name: name must be a non-empty string.', { param: 'name' });
}

function readOptionalText(row: Record<string, unknown>, field: string): string {
  const value = row[field];
  if (value === undefined || value === null) return '';
  if (typeof value === 'string') return value;
  throw new AppError('invalid_import', `${field} must be a string.`, { param: field });
}

/** LAMB keeps metadata under `metadata` (newer) or `api_callback` (older), as a string or an object. */
function metadataFieldOf(row: Record<string, unknown>): 'metadata' | 'api_callback' {
  return isEmptyMetadata(row.metadata) && !isEmptyMetadata(row.api_callback) ? 'api_callback' : 'metadata';
}

function readMetadata(row: Record<string, unknown>): AssistantMetadata {
  const field = metadataFieldOf(row);
  try {
    return normalizeMetadata(row[field]);
  } catch (error) {
    throw field === 'api_callback' ? renameMetadataParam(error, field) : error;
  }
}

/**
 * Names a later check's metadata error after the field the import document held the metadata in,
 * as the normalizer's own errors are: `metadata.rag_processor` becomes `api_callback.rag_processor`
 * for a document that only has api_callback. Call it only for a document fromImportDocument read.
 */
export function asImportMetadataError(document: unknown, error: unknown): unknown {
  const field = metadataFieldOf(unwrapRow(document));
  return field === 'api_callback' ? renameMetadataParam(error, field) : error;
}

function isEmptyMetadata(value: unknown): boolean {
  return value === undefined || value === null || (typeof value === 'string' && value.trim() === '');
}

/** The normalizer names `metadata…`; when the document held it under api_callback, say so. */
function renameMetadataParam(error: unknown, field: string): unknown {
  if (!(error instanceof AppError) || error.param === null || !error.param.startsWith('metadata')) return error;
  const param = field + error.param.slice('metadata'.length);
  return new AppError(error.code, error.message, { param, cause: error, ...(error.details ? { details: error.details } : {}) });
}

function readCollections(value: unknown): string[] {
  if (value === undefined || value === null) return [];
  if (typeof value === 'string') return cleanCollectionIds(value.split(','));
  if (Array.isArray(value)) {
    value.forEach((item: unknown, index: number) => {
      if (typeof item !== 'string') {
        throw new AppError('invalid_import', `RAG_collections[${index}] must be a collection id string.`, {
          param: `RAG_collections[${index}]`,
        });
      }
    });
    return cleanCollectionIds(value as string[]);
  }
  throw new AppError('invalid_import', 'RAG_collections must be a comma-separated string or an array of collection ids.', {
    param: 'RAG_collections',
  });
}

function cleanCollectionIds(ids: string[]): string[] {
  return ids.map((id) => id.trim()).filter((id) => id !== '');
}

/** A missing or unusable top_k falls back to LAMB's default rather than failing the import. */
function readTopK(value: unknown): number {
  const candidate = typeof value === 'string' && /^\s*[0-9]+\s*$/.test(value) ? Number(value) : value;
  return typeof candidate === 'number' && Number.isSafeInteger(candidate) && candidate > 0 ? candidate : DEFAULT_RAG_TOP_K;
}

function isPlainRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
