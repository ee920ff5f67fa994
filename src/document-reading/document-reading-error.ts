/**
 * How document reading refuses a document or a setting: a DocumentReadingError with a stable
 * code, a message safe to show, the field it is about and structured details. This folder is a
 * self-contained library and imports nothing of Merino, so it cannot throw Merino's AppError; the
 * services that call it turn each DocumentReadingError into the AppError of the same code, message,
 * field and details (src/ingestion/reading-refusals.ts), which is what clients see.
 */

/** The codes document reading refuses with; each is a code of Merino's error catalogue. */
export type DocumentReadingErrorCode = 'invalid_file' | 'unreadable_document' | 'document_too_large' | 'invalid_chunking';

export interface DocumentReadingErrorOptions {
  /** The field the refusal is about, e.g. `file` or `chunk_size`. */
  param?: string;
  /** Safe, structured details for the client, e.g. `{ reason: 'too_many_pages', limit: 2000 }`. */
  details?: Record<string, unknown>;
  cause?: unknown;
}

export class DocumentReadingError extends Error {
  readonly code: DocumentReadingErrorCode;
  readonly param: string | null;
  readonly details: Record<string, unknown> | undefined;

  constructor(code: DocumentReadingErrorCode, message: string, options: DocumentReadingErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'DocumentReadingError';
    this.code = code;
    this.param = options.param ?? null;
    this.details = options.details;
  }
}

export function isDocumentReadingError(value: unknown): value is DocumentReadingError {
  return value instanceof DocumentReadingError;
}
