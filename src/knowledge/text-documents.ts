/**
 * LAMB's JSON form of documents, `{documents: [{text, metadata}]}`: each text checked (not empty,
 * within the size limits) and given the name, metadata and source address its document is stored with.
 */
import { AppError } from '../errors/app-error.js';
import { displayFileName } from '../files/file-paths.js';
import type { TextDocumentInput } from './knowledge-document-schemas.js';

/** A text of LAMB's JSON form, checked and ready to store. */
export interface PreparedText {
  fileName: string;
  text: string;
  metadata: Record<string, unknown>;
  sourceUrl: string | null;
}

/** A document's metadata is copied into each of its chunks, so it stays small. */
const TEXT_DOCUMENT_METADATA_BYTES_MAXIMUM = 8_192;
const TEXT_EXTENSIONS = /\.(?:txt|text|md|markdown|vtt|srt)$/i;

/** `metadata.filename` or `metadata.title`, kept as a text name (`.txt` added unless it is .txt or .md). */
function textDocumentName(metadata: Record<string, unknown>, index: number): string {
  const given = [metadata.filename, metadata.title].find((value): value is string => typeof value === 'string' && value.trim() !== '');
  const name = displayFileName(given ?? `document-${index + 1}`);
  return TEXT_EXTENSIONS.test(name) ? name : `${name}.txt`;
}

function sourceUrlOf(metadata: Record<string, unknown>): string | null {
  const candidate = [metadata.source_url, metadata.url].find((value): value is string => typeof value === 'string');
  return candidate !== undefined && /^https?:\/\/\S+$/i.test(candidate) ? candidate : null;
}

/** Checks every text before any is stored, so a refused one leaves nothing behind. */
export function prepareTexts(documents: readonly TextDocumentInput[], bytesMaximum: number): PreparedText[] {
  return documents.map((document, index): PreparedText => {
    const metadata = document.metadata ?? {};
    // Measured, not encoded: the bytes of each text are made only when it is stored, one at a time.
    const byteLength = Buffer.byteLength(document.text, 'utf8');
    if (document.text.trim() === '')
      throw new AppError('invalid_body', `Document ${index + 1} has no text.`, { param: `documents[${index}].text` });
    if (byteLength > bytesMaximum)
      throw new AppError('file_too_large', `Document ${index + 1} is larger than ${bytesMaximum} bytes.`, {
        param: `documents[${index}].text`,
      });
    if (Buffer.byteLength(JSON.stringify(metadata)) > TEXT_DOCUMENT_METADATA_BYTES_MAXIMUM) {
      throw new AppError(
        'invalid_body',
        `The metadata of document ${index + 1} is larger than ${TEXT_DOCUMENT_METADATA_BYTES_MAXIMUM} bytes.`,
        { param: `documents[${index}].metadata` },
      );
    }
    return { fileName: textDocumentName(metadata, index), text: document.text, metadata, sourceUrl: sourceUrlOf(metadata) };
  });
}
