/**
 * Recursive character chunking, as LangChain's RecursiveCharacterTextSplitter does it: a text is
 * cut at the coarsest separator it contains (paragraphs, then lines, sentences, words, and
 * finally characters); pieces still too long are cut again with the finer separators; pieces
 * are then merged back into chunks of at most `chunkSize`, each new chunk starting with up to
 * `chunkOverlap` characters from the end of the one before.
 *
 * Guarantees: no chunk is empty or longer than `chunkSize` (lengths in UTF-16 code units, as
 * JavaScript counts them, so a limit in code points holds too); a cut never falls inside a
 * surrogate pair, and at the character level falls between grapheme clusters (an emoji with
 * its modifiers stays whole); the same input always gives the same chunks. Each separator stays
 * at the end of the piece before it, so sentences keep their full stops. A chunk never spans two
 * sections, so it keeps its section's page and heading.
 */
import { DocumentReadingError } from './document-reading-error.js';
import { momentUrl } from './captions.js';
import type { TextSection } from './markdown-sections.js';

export const DEFAULT_CHUNK_SIZE = 1000;
export const DEFAULT_CHUNK_OVERLAP = 200;
/** Smaller chunks carry too little text to be found or to help an answer. */
export const CHUNK_SIZE_MINIMUM = 100;
/** Larger chunks exceed what embedding models read and crowd the prompt. */
export const CHUNK_SIZE_MAXIMUM = 8000;
/** Overlap at most half the chunk size: more would repeat most of every chunk and multiply their number. */
export const OVERLAP_RATIO_MAXIMUM = 0.5;
/** Coarsest first; the empty separator cuts between characters. */
export const CHUNK_SEPARATORS: readonly string[] = ['\n\n', '\n', '. ', ' ', ''];

export interface ChunkingOptions {
  chunkSize?: number;
  chunkOverlap?: number;
}

export interface ResolvedChunkingOptions {
  chunkSize: number;
  chunkOverlap: number;
}

export interface Chunk {
  text: string;
  /** 0-based position among the document's chunks. */
  chunkIndex: number;
  /** How many chunks the document has. */
  chunkCount: number;
  page?: number;
  heading?: string;
  /** For captions: the second of the video the chunk's section starts at. */
  startSeconds?: number;
}

export interface ChunkMetadata {
  filename: string;
  document_id: number;
  chunk_index: number;
  chunk_count: number;
  page?: number;
  heading?: string;
  start_seconds?: number;
  source_url: string | null;
}

function invalidChunking(param: 'chunk_size' | 'chunk_overlap', message: string): DocumentReadingError {
  return new DocumentReadingError('invalid_chunking', message, {
    param,
    details: {
      minimum_chunk_size: CHUNK_SIZE_MINIMUM,
      maximum_chunk_size: CHUNK_SIZE_MAXIMUM,
      maximum_overlap_ratio: OVERLAP_RATIO_MAXIMUM,
    },
  });
}

/** The options with defaults filled in, or `invalid_chunking` naming the setting that is wrong. */
export function resolveChunkingOptions(options: ChunkingOptions = {}): ResolvedChunkingOptions {
  const chunkSize = options.chunkSize ?? DEFAULT_CHUNK_SIZE;
  const chunkOverlap = options.chunkOverlap ?? DEFAULT_CHUNK_OVERLAP;
  if (!Number.isInteger(chunkSize) || chunkSize < CHUNK_SIZE_MINIMUM || chunkSize > CHUNK_SIZE_MAXIMUM) {
    throw invalidChunking(
      'chunk_size',
      `The chunk size must be a whole number of characters from ${CHUNK_SIZE_MINIMUM} to ${CHUNK_SIZE_MAXIMUM}; it is ${String(chunkSize)}.`,
    );
  }
  if (!Number.isInteger(chunkOverlap) || chunkOverlap < 0) {
    throw invalidChunking(
      'chunk_overlap',
      `The chunk overlap must be a whole number of characters, 0 or more; it is ${String(chunkOverlap)}.`,
    );
  }
  const maximumOverlap = Math.floor(chunkSize * OVERLAP_RATIO_MAXIMUM);
  if (chunkOverlap > maximumOverlap) {
    throw invalidChunking(
      'chunk_overlap',
      `The chunk overlap (${chunkOverlap}) must be smaller than the chunk size: at most half of it, ${maximumOverlap} for a chunk size of ${chunkSize}.`,
    );
  }
  return { chunkSize, chunkOverlap };
}

const graphemeSegmenter = new Intl.Segmenter('und', { granularity: 'grapheme' });
/** V8's segmenter slows down sharply on long strings, so text is segmented in windows of this many code units. */
const SEGMENT_WINDOW = 256;

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

/** Grapheme clusters of `text`, each cut into code points if longer than `chunkSize`. */
function graphemePieces(text: string, chunkSize: number): string[] {
  const pieces: string[] = [];
  const push = (cluster: string): void => {
    if (cluster.length <= chunkSize) pieces.push(cluster);
    else pieces.push(...Array.from(cluster));
  };
  let start = 0;
  while (start < text.length) {
    let end = Math.min(text.length, start + SEGMENT_WINDOW);
    if (end < text.length && isHighSurrogate(text.charCodeAt(end - 1))) end += 1;
    const clusters = Array.from(graphemeSegmenter.segment(text.slice(start, end)), (part) => part.segment);
    // The window's last cluster may go on past it, so it is read again at the start of the next window
    // (unless it is the whole window: a cluster that long is cut at the window, never inside a pair).
    const kept = end === text.length || clusters.length === 1 ? clusters.length : clusters.length - 1;
    for (let index = 0; index < kept; index += 1) {
      push(clusters[index]!);
      start += clusters[index]!.length;
    }
  }
  return pieces;
}

/**
 * `text` cut after each occurrence of `separator` (the separator stays with the piece before
 * it); for the empty separator, cut into grapheme clusters, or code points for a cluster longer
 * than `chunkSize`.
 */
function splitOnSeparator(text: string, separator: string, chunkSize: number): string[] {
  if (separator === '') return graphemePieces(text, chunkSize);
  const pieces: string[] = [];
  let start = 0;
  for (let found = text.indexOf(separator); found !== -1; found = text.indexOf(separator, start)) {
    pieces.push(text.slice(start, found + separator.length));
    start = found + separator.length;
  }
  if (start < text.length) pieces.push(text.slice(start));
  return pieces;
}

/** Joins pieces into chunks of at most chunkSize, carrying up to chunkOverlap characters of pieces into the next chunk. */
function mergePieces(pieces: readonly string[], { chunkSize, chunkOverlap }: ResolvedChunkingOptions, chunks: string[]): void {
  let first = 0;
  let end = 0;
  let total = 0;
  const emit = (): void => {
    const text = pieces.slice(first, end).join('').trim();
    if (text !== '') chunks.push(text);
  };
  for (; end < pieces.length; end += 1) {
    const length = pieces[end]!.length;
    if (total + length > chunkSize && end > first) {
      emit();
      // Drop pieces from the front until what is left fits as overlap and leaves room for the next piece.
      while (first < end && (total > chunkOverlap || total + length > chunkSize)) {
        total -= pieces[first]!.length;
        first += 1;
      }
    }
    total += length;
  }
  if (end > first) emit();
}

function splitRecursively(text: string, separators: readonly string[], options: ResolvedChunkingOptions, chunks: string[]): void {
  let level = separators.length - 1;
  for (let index = 0; index < separators.length; index += 1) {
    const separator = separators[index]!;
    if (separator === '' || text.includes(separator)) {
      level = index;
      break;
    }
  }
  const separator = separators[level]!;
  const finer = separators.slice(level + 1);
  let fitting: string[] = [];
  for (const piece of splitOnSeparator(text, separator, options.chunkSize)) {
    if (piece.length <= options.chunkSize) {
      fitting.push(piece);
      continue;
    }
    if (fitting.length > 0) {
      mergePieces(fitting, options, chunks);
      fitting = [];
    }
    // Only the character level has no finer separator, and its pieces always fit.
    splitRecursively(piece, finer, options, chunks);
  }
  if (fitting.length > 0) mergePieces(fitting, options, chunks);
}

/** The chunks of one text, in order; none empty, none longer than chunkSize. */
export function splitText(text: string, options: ChunkingOptions = {}): string[] {
  const resolved = resolveChunkingOptions(options);
  const chunks: string[] = [];
  if (text.length <= resolved.chunkSize) {
    const whole = text.trim();
    if (whole !== '') chunks.push(whole);
    return chunks;
  }
  splitRecursively(text, CHUNK_SEPARATORS, resolved, chunks);
  return chunks;
}

/** The chunks of a document's sections, numbered across the whole document; each keeps its section's page and heading. */
export function chunkSections(sections: readonly TextSection[], options: ChunkingOptions = {}): Chunk[] {
  const resolved = resolveChunkingOptions(options);
  const pieces: Array<Omit<Chunk, 'chunkIndex' | 'chunkCount'>> = [];
  for (const section of sections) {
    for (const text of splitText(section.text, resolved)) {
      pieces.push({
        text,
        ...(section.page !== undefined ? { page: section.page } : {}),
        ...(section.heading !== undefined ? { heading: section.heading } : {}),
        ...(section.startSeconds !== undefined ? { startSeconds: section.startSeconds } : {}),
      });
    }
  }
  return pieces.map((piece, chunkIndex) => ({ ...piece, chunkIndex, chunkCount: pieces.length }));
}

/** The chunk's place in its source: the page of a PDF (`#page=N`, which PDF viewers follow), the moment of a video. */
function placeUrl(sourceUrl: string | null, chunk: Chunk): string | null {
  if (sourceUrl === null) return null;
  if (chunk.startSeconds !== undefined) return momentUrl(sourceUrl, chunk.startSeconds);
  return chunk.page !== undefined && !sourceUrl.includes('#') ? `${sourceUrl}#page=${chunk.page}` : sourceUrl;
}

/** The metadata stored with a chunk, its source URL pointing at the chunk's page or moment where it has one. */
export function chunkMetadata(chunk: Chunk, document: { documentId: number; fileName: string; sourceUrl?: string | null }): ChunkMetadata {
  const pageUrl = placeUrl(document.sourceUrl ?? null, chunk);
  return {
    filename: document.fileName,
    document_id: document.documentId,
    chunk_index: chunk.chunkIndex,
    chunk_count: chunk.chunkCount,
    ...(chunk.page !== undefined ? { page: chunk.page } : {}),
    ...(chunk.heading !== undefined ? { heading: chunk.heading } : {}),
    ...(chunk.startSeconds !== undefined ? { start_seconds: chunk.startSeconds } : {}),
    source_url: pageUrl,
  };
}
