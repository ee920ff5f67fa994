/**
 * Which documents a knowledge base accepts, judged by name and by content: a PDF must start like
 * a PDF, a Word document must be a ZIP archive holding `word/document.xml`, and text types must
 * be UTF-8 text without NUL bytes (text-content.ts, the same check the files API makes). A file whose
 * content is not what its name says — a PNG named .pdf, a spreadsheet named .docx, a PDF named
 * .txt — is refused with `invalid_file` naming what the content actually is.
 */
import { looksLikeZip, ZIP_DIRECTORY_ENTRIES_MAXIMUM, readZipDirectory, type ZipEntry } from './bounded-zip.js';
import { DocumentReadingError, isDocumentReadingError } from './document-reading-error.js';
import { TextContentInspector } from './text-content.js';

export type DocumentType = 'txt' | 'md' | 'html' | 'pdf' | 'docx' | 'vtt' | 'srt';

export interface DocumentTypeInfo {
  type: DocumentType;
  /** Accepted extensions, the usual one first. */
  extensions: readonly string[];
  contentType: string;
  /** How a message names the type: "a PDF document". */
  description: string;
}

export const DOCUMENT_TYPES: readonly DocumentTypeInfo[] = [
  { type: 'txt', extensions: ['txt'], contentType: 'text/plain', description: 'plain text' },
  { type: 'md', extensions: ['md', 'markdown'], contentType: 'text/markdown', description: 'Markdown text' },
  { type: 'html', extensions: ['html', 'htm'], contentType: 'text/html', description: 'an HTML page' },
  { type: 'pdf', extensions: ['pdf'], contentType: 'application/pdf', description: 'a PDF document' },
  {
    type: 'docx',
    extensions: ['docx'],
    contentType: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
    description: 'a Word document (.docx)',
  },
  { type: 'vtt', extensions: ['vtt'], contentType: 'text/vtt', description: 'WebVTT captions' },
  { type: 'srt', extensions: ['srt'], contentType: 'application/x-subrip', description: 'SubRip captions' },
];

export const ACCEPTED_DOCUMENT_EXTENSIONS: readonly string[] = DOCUMENT_TYPES.flatMap((info) => info.extensions);
const ACCEPTED_LIST = ACCEPTED_DOCUMENT_EXTENSIONS.map((extension) => `.${extension}`).join(', ');

/** The part every Word document has; OPC part names compare case-insensitively. */
export const DOCX_MAIN_PART = 'word/document.xml';
/** Acrobat accepts a PDF header anywhere in the first 1,024 bytes, after junk some generators prepend. */
const PDF_HEADER_WINDOW = 1024;
const PDF_HEADER = [0x25, 0x50, 0x44, 0x46, 0x2d]; // %PDF-

export type DocumentRefusalReason =
  'unsupported_type' | 'empty' | 'type_mismatch' | 'binary_content' | 'not_utf8' | 'control_characters' | 'not_html';

export interface DetectedDocumentType {
  type: DocumentType;
  contentType: string;
  /** The entries of the archive, for a Word document. */
  zipEntries?: ZipEntry[];
}

/** `invalid_file` about the uploaded file, with `details.reason` (and what was found, when known). */
function refuse(
  reason: DocumentRefusalReason,
  message: string,
  extra: Record<string, unknown> = {},
  cause?: unknown,
): DocumentReadingError {
  return new DocumentReadingError('invalid_file', message, { param: 'file', details: { reason, ...extra }, cause });
}

/** A file name's extension, lower case, without the dot; '' when it has none (as src/files/file-paths.ts reads it). */
function fileExtension(name: string): string {
  const dot = name.lastIndexOf('.');
  return dot > 0 ? name.slice(dot + 1).toLowerCase() : '';
}

/** The accepted type of a file name, or `invalid_file` naming the accepted extensions. */
export function documentTypeOfName(fileName: string): DocumentTypeInfo {
  const extension = fileExtension(fileName);
  const info = DOCUMENT_TYPES.find((candidate) => candidate.extensions.includes(extension));
  if (info === undefined) {
    const found = extension === '' ? 'has no extension' : `has the extension .${extension}`;
    throw refuse('unsupported_type', `The file ${found}; a knowledge base accepts ${ACCEPTED_LIST} files.`);
  }
  return info;
}

/** What the content turned out to be, when its first bytes say so. */
interface RecognizedContent {
  /** Which accepted type it is, if any. */
  type?: DocumentType;
  /** "a PNG image", "a ZIP archive holding an Excel workbook (.xlsx)". */
  description: string;
  zipEntries?: ZipEntry[];
}

function startsWith(bytes: Uint8Array, signature: readonly number[], at = 0): boolean {
  if (bytes.length < at + signature.length) return false;
  return signature.every((byte, index) => bytes[at + index] === byte);
}

function ascii(text: string): number[] {
  return Array.from(text, (character) => character.charCodeAt(0));
}

function pdfHeaderOffset(bytes: Uint8Array, window: number): number {
  const last = Math.min(bytes.length - PDF_HEADER.length, window - PDF_HEADER.length);
  for (let offset = 0; offset <= last; offset += 1) {
    if (startsWith(bytes, PDF_HEADER, offset)) return offset;
  }
  return -1;
}

/** Binary formats people mistake for documents, by their leading bytes. */
const BINARY_SIGNATURES: ReadonlyArray<{ signature: readonly number[]; at?: number; description: string }> = [
  { signature: [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], description: 'a PNG image' },
  { signature: [0xff, 0xd8, 0xff], description: 'a JPEG image' },
  { signature: ascii('GIF87a'), description: 'a GIF image' },
  { signature: ascii('GIF89a'), description: 'a GIF image' },
  { signature: ascii('WEBP'), at: 8, description: 'a WebP image' },
  { signature: [0x49, 0x49, 0x2a, 0x00], description: 'a TIFF image' },
  { signature: [0x4d, 0x4d, 0x00, 0x2a], description: 'a TIFF image' },
  {
    signature: [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1],
    description: 'an older Microsoft Office file (such as a Word 97–2003 .doc)',
  },
  { signature: ascii('{\\rtf'), description: 'an RTF document' },
  { signature: [0x1f, 0x8b], description: 'a gzip archive' },
  { signature: [0x37, 0x7a, 0xbc, 0xaf, 0x27, 0x1c], description: 'a 7-Zip archive' },
  { signature: [...ascii('Rar!'), 0x1a, 0x07], description: 'a RAR archive' },
  { signature: [0x7f, 0x45, 0x4c, 0x46], description: 'an executable program' },
];

async function describeZip(bytes: Uint8Array): Promise<RecognizedContent> {
  const zipEntries = await readZipDirectory(bytes);
  if (zipEntries === undefined)
    return {
      description: `a damaged or incomplete ZIP archive, or one of more than ${ZIP_DIRECTORY_ENTRIES_MAXIMUM.toLocaleString('en-US')} entries`,
    };
  const names = new Set(zipEntries.map((entry) => entry.name.toLowerCase()));
  if (names.has(DOCX_MAIN_PART)) return { type: 'docx', description: 'a Word document (.docx)', zipEntries };
  if (names.has('xl/workbook.xml')) return { description: 'a ZIP archive holding an Excel workbook (.xlsx)' };
  if (names.has('ppt/presentation.xml')) return { description: 'a ZIP archive holding a PowerPoint presentation (.pptx)' };
  if (names.has('meta-inf/container.xml')) return { description: 'a ZIP archive holding an EPUB e-book' };
  if (names.has('content.xml') && names.has('mimetype'))
    return { description: 'a ZIP archive holding an OpenDocument file (such as .odt)' };
  return { description: `a ZIP archive without ${DOCX_MAIN_PART}, so not a Word document` };
}

/**
 * What the content is, judged from its bytes alone; undefined when it is none of the formats we
 * know (text, or binary data of another kind). `pdfWindow` is how far into the file a PDF header
 * may start.
 */
async function recognizeContent(bytes: Uint8Array, pdfWindow: number): Promise<RecognizedContent | undefined> {
  // Signatures at byte 0 first, so a ZIP or an image holding "%PDF-" early on is not taken for a PDF.
  if (looksLikeZip(bytes)) return describeZip(bytes);
  for (const { signature, at, description } of BINARY_SIGNATURES) {
    if (startsWith(bytes, signature, at)) {
      // "RIFF....WEBP": the WebP signature sits at byte 8 behind a RIFF header.
      if (at === 8 && !startsWith(bytes, ascii('RIFF'))) continue;
      return { description };
    }
  }
  if (pdfHeaderOffset(bytes, pdfWindow) !== -1) return { type: 'pdf', description: 'a PDF document' };
  return undefined;
}

/** Points at the right extension when the content is another accepted type. */
function hintFor(found: RecognizedContent | undefined): string {
  const info = DOCUMENT_TYPES.find((candidate) => candidate.type === found?.type);
  return info === undefined ? '' : ` Upload it with the .${info.extensions[0]} extension instead.`;
}

/** How much text the upload path checks between two turns of the event loop (a few milliseconds of work). */
const TEXT_SLICE_BYTES = 1024 * 1024;

/**
 * Checks text content (UTF-8, no NUL or binary control characters,
 * HTML holds markup) a slice at a time, letting other requests run in between: checked at once, a
 * 50 MB upload held the event loop for 220 to 360 ms.
 */
async function requireTextInSlices(info: DocumentTypeInfo, extension: string, bytes: Uint8Array): Promise<void> {
  const inspector = textInspector(info);
  try {
    for (let offset = 0; offset < bytes.length; offset += TEXT_SLICE_BYTES) {
      if (offset > 0) await new Promise((resolve) => setImmediate(resolve));
      inspector.inspect(bytes.subarray(offset, offset + TEXT_SLICE_BYTES));
    }
    inspector.finish();
  } catch (error) {
    throw inKnowledgeBaseTerms(error, extension);
  }
}

function textInspector(info: DocumentTypeInfo): TextContentInspector {
  return new TextContentInspector({ kind: info.type === 'html' ? 'html' : 'text', acceptedList: ACCEPTED_LIST });
}

/** Checks text content all at once (off the event loop, in the document worker). */
function requireText(info: DocumentTypeInfo, extension: string, bytes: Uint8Array): void {
  const inspector = textInspector(info);
  try {
    inspector.inspect(bytes);
    inspector.finish();
  } catch (error) {
    throw inKnowledgeBaseTerms(error, extension);
  }
}

/** The text check's wording for NUL bytes is about files in general; say it in knowledge-base terms. */
function inKnowledgeBaseTerms(error: unknown, extension: string): unknown {
  if (isDocumentReadingError(error) && error.details?.reason === 'binary_content') {
    return refuse(
      'binary_content',
      `The file is named .${extension} but holds binary data (NUL bytes), not text.`,
      { found: 'binary data' },
      error,
    );
  }
  return error;
}

/**
 * The type of an uploaded document, from its name and checked against its content. Refuses an
 * unsupported extension, an empty file, and content that is not what the name says.
 */
export async function detectDocumentType(input: { fileName: string; bytes: Uint8Array }): Promise<DetectedDocumentType> {
  const detected = await detectAllButText(input);
  if ('textToCheck' in detected) {
    requireText(detected.textToCheck, fileExtension(input.fileName), input.bytes);
    return { type: detected.textToCheck.type, contentType: detected.textToCheck.contentType };
  }
  return detected;
}

/**
 * detectDocumentType for the upload path, which runs on the event loop: the same checks, but text
 * is checked in slices with a turn of the event loop between them.
 */
export async function detectUploadedDocumentType(input: { fileName: string; bytes: Uint8Array }): Promise<DetectedDocumentType> {
  const detected = await detectAllButText(input);
  if ('textToCheck' in detected) {
    await requireTextInSlices(detected.textToCheck, fileExtension(input.fileName), input.bytes);
    return { type: detected.textToCheck.type, contentType: detected.textToCheck.contentType };
  }
  return detected;
}

/** Everything but the check of a text file's characters, which is left to the caller as `textToCheck`. */
async function detectAllButText(input: {
  fileName: string;
  bytes: Uint8Array;
}): Promise<DetectedDocumentType | { textToCheck: DocumentTypeInfo }> {
  const { bytes } = input;
  const info = documentTypeOfName(input.fileName);
  const extension = fileExtension(input.fileName);
  if (bytes.length === 0) throw refuse('empty', 'The file is empty.');

  if (info.type === 'pdf' || info.type === 'docx') {
    const found = await recognizeContent(bytes, PDF_HEADER_WINDOW);
    if (found?.type === info.type)
      return { type: info.type, contentType: info.contentType, ...(found.zipEntries ? { zipEntries: found.zipEntries } : {}) };
    const expected = info.type === 'pdf' ? 'PDF files start with %PDF-' : `Word documents are ZIP archives holding ${DOCX_MAIN_PART}`;
    const what = found?.description ?? (looksLikeText(bytes) ? 'text' : 'data of an unknown kind');
    throw refuse(
      'type_mismatch',
      `The file is named .${extension} but its content is ${what}, not ${info.description} (${expected}).${hintFor(found)}`,
      { found: what },
    );
  }

  // Text named as text: a PDF header only counts at the very start, so prose that mentions "%PDF-" is still text.
  const found = await recognizeContent(bytes, PDF_HEADER.length);
  if (found !== undefined) {
    throw refuse(
      'type_mismatch',
      `The file is named .${extension} but its content is ${found.description}, not ${info.description}.${hintFor(found)}`,
      { found: found.description },
    );
  }
  return { textToCheck: info };
}

/** A rough look for messages only: no NUL byte in the first KiB. */
function looksLikeText(bytes: Uint8Array): boolean {
  return !bytes.subarray(0, 1024).includes(0);
}
