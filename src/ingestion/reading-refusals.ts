/**
 * Document reading (src/document-reading/) is a library that imports nothing of Merino, so it
 * refuses a document or a chunking setting with its own DocumentReadingError. Clients see
 * AppErrors: this turns one into the other with the same code, message, field and details, so a
 * refusal reads exactly as it did when document reading threw the AppError itself.
 */
import { isDocumentReadingError } from '../document-reading/document-reading-error.js';
import { AppError } from '../errors/app-error.js';

/** `error` as the AppError clients see when document reading refused; any other error unchanged. */
export function asAppError(error: unknown): unknown {
  if (!isDocumentReadingError(error)) return error;
  return new AppError(error.code, error.message, {
    ...(error.param !== null ? { param: error.param } : {}),
    ...(error.details !== undefined ? { details: error.details } : {}),
    cause: error.cause,
  });
}

/** What `read` returns, a refusal from document reading thrown as its AppError. */
export function refusingWithAppError<T>(read: () => T): T {
  try {
    return read();
  } catch (error) {
    throw asAppError(error);
  }
}
