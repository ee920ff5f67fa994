/**
 * The text of an uploaded document, as sections ready for chunking: a PDF page by page (pages
 * numbered from 1), a Word document and an HTML page converted to Markdown and split at their
 * headings like Markdown itself, plain text as one section. Pure: bytes and a name in, text out.
 *
 * A failure names its cause: content that does not match the name (`invalid_file`), a PDF
 * without a text layer, a password-protected or damaged file, a document without text
 * (`unreadable_document`), or one past the limits on pages and characters (`document_too_large`).
 */
import { DocumentReadingError } from './document-reading-error.js';
import { captionSections } from './captions.js';
import { ZIP_DIRECTORY_ENTRIES_MAXIMUM, readZipParts, writeStoredZip, type ZipPart } from './bounded-zip.js';
import { detectDocumentType, type DocumentType } from './document-types.js';
import { splitMarkdownSections, type TextSection } from './markdown-sections.js';
import { trimCharactersAtLineEnds } from '../text-trimming/trim-characters.js';
import { requirePdfStreamsWithinBudget } from './pdf-stream-budget.js';

/** Most pages read from one PDF; a longer one is refused before its text is extracted. */
export const DOCUMENT_PAGES_MAXIMUM = 2_000;
/** Most characters of text indexed from one document (about 2,500 pages of prose). */
export const DOCUMENT_CHARACTERS_MAXIMUM = 5_000_000;
/** Most bytes one part of a Word document may inflate to, measured while inflating (INGESTION_ZIP_PART_MAX_BYTES). */
export const ZIP_PART_BYTES_MAXIMUM = 64 * 1024 * 1024;
/** Most bytes the parts of one Word document may inflate to together (INGESTION_ZIP_TOTAL_MAX_BYTES). */
export const ZIP_TOTAL_BYTES_MAXIMUM = 128 * 1024 * 1024;
/** Most bytes a PDF's compressed streams other than images may inflate to together (INGESTION_PDF_INFLATED_MAX_BYTES). */
export const PDF_INFLATED_BYTES_MAXIMUM = 256 * 1024 * 1024;
/**
 * Most chunks indexed from one document (INGESTION_CHUNKS_MAX). Replacing a document's chunks is one
 * transaction, and on SQLite every other query waits for it: this keeps that wait short.
 */
export const DOCUMENT_CHUNKS_MAXIMUM = 10_000;

export interface ExtractionLimits {
  maximumPages: number;
  maximumCharacters: number;
  maximumZipPartBytes: number;
  maximumZipTotalBytes: number;
  maximumPdfInflatedBytes: number;
  maximumChunks: number;
}

export const DEFAULT_EXTRACTION_LIMITS: Readonly<ExtractionLimits> = {
  maximumPages: DOCUMENT_PAGES_MAXIMUM,
  maximumCharacters: DOCUMENT_CHARACTERS_MAXIMUM,
  maximumZipPartBytes: ZIP_PART_BYTES_MAXIMUM,
  maximumZipTotalBytes: ZIP_TOTAL_BYTES_MAXIMUM,
  maximumPdfInflatedBytes: PDF_INFLATED_BYTES_MAXIMUM,
  maximumChunks: DOCUMENT_CHUNKS_MAXIMUM,
};

export interface ExtractedDocument {
  type: DocumentType;
  contentType: string;
  sections: TextSection[];
  /** For a PDF: its number of pages. */
  pageCount?: number;
  /** For a PDF: the pages that hold no text (scanned pages, figures), 1-based. */
  pagesWithoutText?: number[];
}

export interface DocumentInput {
  fileName: string;
  bytes: Uint8Array;
}

/** Word styles mapped to headings beyond mammoth's defaults (which cover Heading 1–6). */
const DOCX_STYLE_MAP = ["p[style-name='Title'] => h1:fresh", 'p.Title => h1:fresh'];

export type UnreadableReason = 'no_text_layer' | 'no_text' | 'encrypted' | 'damaged' | 'document_type_declaration';

function unreadable(reason: UnreadableReason, message: string, cause?: unknown): DocumentReadingError {
  return new DocumentReadingError('unreadable_document', message, { param: 'file', details: { reason }, cause });
}

function formatCount(count: number): string {
  return count.toLocaleString('en-US');
}

function plural(count: number, noun: string): string {
  return `${formatCount(count)} ${noun}${count === 1 ? '' : 's'}`;
}

function tooManyCharacters(limit: number): DocumentReadingError {
  return new DocumentReadingError(
    'document_too_large',
    `The document holds more than ${formatCount(limit)} characters of text, the most indexed from one document; split it into smaller documents.`,
    {
      param: 'file',
      details: { reason: 'too_many_characters', limit },
    },
  );
}

/** Refuses a document that splits into more chunks than one document may have. */
export function requireWithinChunks(count: number, limits: Partial<ExtractionLimits>): void {
  const limit = limits.maximumChunks ?? DOCUMENT_CHUNKS_MAXIMUM;
  if (count <= limit) return;
  throw new DocumentReadingError(
    'document_too_large',
    `The document splits into ${formatCount(count)} chunks, more than the ${formatCount(limit)} indexed from one document; raise the knowledge base's chunk size or split the document.`,
    { param: 'file', details: { reason: 'too_many_chunks', limit } },
  );
}

function requireWithinCharacters(length: number, limits: ExtractionLimits): void {
  if (length > limits.maximumCharacters) throw tooManyCharacters(limits.maximumCharacters);
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
/** C0 and C1 control characters other than tab and line feed (form feeds and vertical tabs are turned into breaks first). */
const CONTROL_CHARACTERS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

/**
 * Text as every type is indexed: line feeds only, form feeds as paragraph breaks, no control
 * characters or lone surrogates, NFC, no trailing spaces, at most one blank line in a row.
 */
export function normalizeText(text: string): string {
  const cleaned = text
    .replace(/\r\n?/g, '\n')
    .replace(/\f/g, '\n\n')
    .replace(/\v/g, '\n')
    .replace(LONE_SURROGATE, '\ufffd')
    .replace(CONTROL_CHARACTERS, '')
    .normalize('NFC');
  // Not /[ \t]+$/gm: that rescans a long run of spaces from each of its characters (issue 11).
  return trimCharactersAtLineEnds(cleaned, ' \t')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

function decodeUtf8(bytes: Uint8Array): string {
  // Content detection has already refused anything that is not UTF-8; a leading BOM is dropped here.
  return new TextDecoder('utf-8').decode(bytes);
}

type PdfDocument = Awaited<ReturnType<(typeof import('unpdf'))['getDocumentProxy']>>;

function pdfOpenError(error: unknown): DocumentReadingError {
  if (error instanceof Error && error.name === 'PasswordException') {
    return unreadable(
      'encrypted',
      'The PDF is protected by a password, so its text cannot be read. Save a copy without the password and upload that.',
      error,
    );
  }
  return unreadable(
    'damaged',
    'The file starts like a PDF, but its structure is damaged, so it cannot be read. Open it and save or export it again as PDF, then upload the new file.',
    error,
  );
}

/** A page's text as unpdf's extractText joins it: the items in order, a line break where an item ends a line. */
async function pageText(pdf: PdfDocument, pageNumber: number): Promise<string> {
  const page = await pdf.getPage(pageNumber);
  try {
    const content = await page.getTextContent();
    return content.items.map((item) => ('str' in item ? item.str + (item.hasEOL ? '\n' : '') : '')).join('');
  } finally {
    page.cleanup();
  }
}

async function extractPdf(
  bytes: Uint8Array,
  limits: ExtractionLimits,
): Promise<Pick<ExtractedDocument, 'sections' | 'pageCount' | 'pagesWithoutText'>> {
  // Before pdf.js sees the file: it would inflate every stream whole, outside any heap limit.
  await requirePdfStreamsWithinBudget(bytes, limits.maximumPdfInflatedBytes);
  const { getDocumentProxy } = await import('unpdf');
  let pdf: PdfDocument;
  try {
    // pdf.js may take over (detach) the buffer it is given, so it gets a copy.
    pdf = await getDocumentProxy(new Uint8Array(bytes), { verbosity: 0 });
  } catch (error) {
    throw pdfOpenError(error);
  }
  try {
    const pageCount = pdf.numPages;
    if (pageCount > limits.maximumPages) {
      throw new DocumentReadingError(
        'document_too_large',
        `The PDF has ${plural(pageCount, 'page')}; at most ${formatCount(limits.maximumPages)} are read from one document. Split it into smaller documents.`,
        {
          param: 'file',
          details: { reason: 'too_many_pages', pages: pageCount, limit: limits.maximumPages },
        },
      );
    }
    if (pageCount === 0) throw unreadable('no_text', 'The PDF has no pages.');
    const sections: TextSection[] = [];
    const pagesWithoutText: number[] = [];
    let characters = 0;
    // Page by page, so a document past the character limit stops at the page that passes it.
    for (let pageNumber = 1; pageNumber <= pageCount; pageNumber += 1) {
      let raw: string;
      try {
        raw = await pageText(pdf, pageNumber);
      } catch (error) {
        throw unreadable(
          'damaged',
          'The text of the PDF could not be read: the content of its pages is damaged. Open it and save or export it again as PDF, then upload the new file.',
          error,
        );
      }
      const text = normalizeText(raw);
      if (text === '') {
        pagesWithoutText.push(pageNumber);
        continue;
      }
      characters += text.length;
      requireWithinCharacters(characters, limits);
      sections.push({ text, page: pageNumber });
    }
    if (sections.length === 0) {
      // The negation lives in each whole clause, so neither wording can lose it.
      const noText = pageCount === 1 ? 'its only page holds no text' : `none of its ${formatCount(pageCount)} pages holds text`;
      throw unreadable(
        'no_text_layer',
        `The PDF has no text layer: ${noText} that can be extracted, so it is most likely a scan or made of images. Run it through OCR (text recognition, for example OCRmyPDF or "Recognize Text" in Adobe Acrobat) and upload the result.`,
      );
    }
    return { sections, pageCount, pagesWithoutText };
  } finally {
    await pdf.destroy().catch(() => undefined);
  }
}

/** The parts mammoth reads: XML parts and relationships. Images, embedded files and nested archives are never inflated. */
function isMarkupPart(name: string): boolean {
  return /\.(?:xml|rels)$/i.test(name);
}

/** `<!DOCTYPE` or `<!ENTITY`, the start of a DTD, which no Office part holds; UTF-16 parts are read as such. */
const DOCUMENT_TYPE_DECLARATION = /<!(?:DOCTYPE|ENTITY)/i;

function declaresDocumentType(bytes: Buffer): boolean {
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return DOCUMENT_TYPE_DECLARATION.test(bytes.toString('utf16le'));
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return DOCUMENT_TYPE_DECLARATION.test(Buffer.from(bytes).swap16().toString('utf16le'));
  // Latin-1 keeps every byte as one character, so the ASCII markup of a UTF-8 part is found as-is.
  return DOCUMENT_TYPE_DECLARATION.test(bytes.toString('latin1'));
}

/**
 * The Word document's XML parts, each measured while it inflates, rebuilt into an archive of
 * those parts only. A part with a DTD is refused: Word never writes one, and a DTD is how an
 * XML file expands entities exponentially ("billion laughs") or names external files (XXE).
 */
async function boundedDocxParts(bytes: Uint8Array, limits: ExtractionLimits): Promise<Buffer> {
  const parts: ZipPart[] = await readZipParts(bytes, isMarkupPart, {
    maximumPartBytes: limits.maximumZipPartBytes,
    maximumTotalBytes: limits.maximumZipTotalBytes,
    // A Word document has a few dozen parts; far more is an archive built to make reading it slow.
    maximumEntries: ZIP_DIRECTORY_ENTRIES_MAXIMUM,
  });
  if (parts.some((part) => declaresDocumentType(part.bytes))) {
    throw unreadable(
      'document_type_declaration',
      'The Word document holds XML with a document type declaration (DTD), which Word never writes and which can make reading it expand without bound; it is not read. Open it in Word or LibreOffice, save it again as .docx and upload the new file.',
    );
  }
  return writeStoredZip(parts);
}

async function docxToHtml(bytes: Uint8Array, limits: ExtractionLimits): Promise<string> {
  const archive = await boundedDocxParts(bytes, limits);
  const { default: mammoth } = await import('mammoth');
  try {
    const result = await mammoth.convertToHtml(
      { buffer: archive },
      {
        styleMap: DOCX_STYLE_MAP,
        // Images are not indexed: they become empty <img> tags, never read or inlined as data URIs.
        convertImage: mammoth.images.imgElement(async () => ({ src: '' })),
        ignoreEmptyParagraphs: true,
        // A document must never make the server read a linked file.
        externalFileAccess: false,
      },
    );
    return result.value;
  } catch (error) {
    throw unreadable(
      'damaged',
      'The Word document could not be read: its content is damaged or not in the .docx format. Open it in Word or LibreOffice, save it again as .docx and upload the new file.',
      error,
    );
  }
}

/** Sections of Markdown text, after the limit on characters. */
function markdownSections(markdown: string, limits: ExtractionLimits): TextSection[] {
  const text = normalizeText(markdown);
  requireWithinCharacters(text.length, limits);
  return splitMarkdownSections(text);
}

const NO_TEXT_MESSAGES: Record<Exclude<DocumentType, 'pdf'>, string> = {
  txt: 'The text file holds no text, only blank space.',
  md: 'The Markdown file holds no text, only blank space.',
  html: 'The HTML page holds no readable text (only markup, scripts, styles or navigation).',
  docx: 'The Word document holds no text (it is empty, or holds only images or drawings).',
  vtt: 'The caption file holds no cue with text.',
  srt: 'The caption file holds no cue with text.',
};

/**
 * The HTML reader (htmlparser2 and its DOM, about 70 ms of CPU to load) only once a Word document or
 * an HTML page is read: a document worker thread that reads only text and Markdown never loads it.
 */
async function htmlToMarkdown(html: string): Promise<string> {
  const reader = await import('./html-to-markdown.js');
  return reader.htmlToMarkdown(html);
}

/**
 * The text sections of a document: its type is detected from name and content first, and
 * anything unreadable, empty or too large is refused with a DocumentReadingError saying why.
 */
export async function extractDocument(input: DocumentInput, limits: Partial<ExtractionLimits> = {}): Promise<ExtractedDocument> {
  const bounds: ExtractionLimits = { ...DEFAULT_EXTRACTION_LIMITS, ...limits };
  const detected = await detectDocumentType(input);
  const { type, contentType } = detected;
  let result: Pick<ExtractedDocument, 'sections' | 'pageCount' | 'pagesWithoutText'>;
  switch (type) {
    case 'pdf':
      return { type, contentType, ...(await extractPdf(input.bytes, bounds)) };
    case 'docx':
      result = { sections: markdownSections(await htmlToMarkdown(await docxToHtml(input.bytes, bounds)), bounds) };
      break;
    case 'html':
      result = { sections: markdownSections(await htmlToMarkdown(decodeUtf8(input.bytes)), bounds) };
      break;
    case 'md':
      result = { sections: markdownSections(decodeUtf8(input.bytes), bounds) };
      break;
    case 'vtt':
    case 'srt': {
      const sections = captionSections(normalizeText(decodeUtf8(input.bytes)));
      requireWithinCharacters(
        sections.reduce((total, section) => total + section.text.length, 0),
        bounds,
      );
      result = { sections };
      break;
    }
    case 'txt': {
      const text = normalizeText(decodeUtf8(input.bytes));
      requireWithinCharacters(text.length, bounds);
      result = { sections: text === '' ? [] : [{ text }] };
      break;
    }
  }
  if (result.sections.length === 0) throw unreadable('no_text', NO_TEXT_MESSAGES[type]);
  return { type, contentType, ...result };
}
