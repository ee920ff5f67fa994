/**
 * The names of uploaded files: turning a client's file name into a safe `file_path`, and
 * refusing any `file_path` that is not one we could have made. A `file_path` is only ever looked
 * up in the store, never joined onto a folder, but these checks make a hostile value fail loudly
 * and early, before it reaches a query or a log line.
 */
import path from 'node:path';
import { AppError } from '../errors/app-error.js';
import { trimCharacters } from '../text-trimming/trim-characters.js';

/** Longest name part of a `file_path` we create, in UTF-16 code units (room for the owner id and a suffix stays under the path limit). */
export const FILE_NAME_LENGTH_MAXIMUM = 160;
/** Longest `file_path` accepted for a lookup; anything longer cannot be one of ours. */
export const FILE_PATH_LENGTH_MAXIMUM = 512;
/** Longest original name kept for display. */
const ORIGINAL_NAME_LENGTH_MAXIMUM = 255;

/** Control characters (C0, DEL, C1), invisible formatting (bidi overrides, zero-width), private-use and lone surrogates. */
const INVISIBLE_OR_CONTROL = /[\u0000-\u001f\u007f-\u009f\p{Cf}\p{Co}\p{Cs}]/gu;
/** Characters that mean something to shells, URLs or other file systems, and `%`, so no name can look percent-encoded. */
const RESERVED_IN_NAMES = /[<>:"|?*%#/\\]/g;
const CONTROL_CHARACTER = /[\u0000-\u001f\u007f-\u009f]/;
const PERCENT_ENCODING = /%[0-9a-f]{2}/i;
const OWNER_SEGMENT = /^[1-9][0-9]{0,9}$/;

export interface ParsedFilePath {
  /** The path as looked up: NFC-normalised, otherwise as given. */
  filePath: string;
  ownerId: number;
  name: string;
}

/** The extension of a name, lower-case and without the dot; '' when it has none. */
export function fileExtension(name: string): string {
  const dot = name.lastIndexOf('.');
  return dot > 0 ? name.slice(dot + 1).toLowerCase() : '';
}

/** The last part of a name a client sent: browsers and old clients may send `C:\fakepath\x.txt` or a relative path. */
function lastSegment(name: string): string {
  return name.split(/[\\/]/).pop() ?? '';
}

/** Cuts `text` to at most `maximum` UTF-16 code units without splitting a surrogate pair. */
function truncateText(text: string, maximum: number): string {
  let result = '';
  for (const character of text) {
    if (result.length + character.length > maximum) break;
    result += character;
  }
  return result;
}

function splitExtension(name: string): { base: string; extension: string } {
  const extension = fileExtension(name);
  return extension === '' ? { base: name, extension } : { base: name.slice(0, name.length - extension.length - 1), extension };
}

function joinExtension(base: string, extension: string): string {
  return extension === '' ? base : `${base}.${extension}`;
}

/**
 * The name part of a new `file_path`: the client's name without any folder, control or invisible
 * characters, reserved punctuation or leading dots, NFC-normalised, with a lower-case extension,
 * at most FILE_NAME_LENGTH_MAXIMUM long. Letters of every script are kept.
 */
export function sanitizeFileName(originalName: string): string {
  const spaced = lastSegment(originalName.normalize('NFC'))
    .replace(/\s+/gu, ' ')
    .replace(INVISIBLE_OR_CONTROL, '')
    .replace(RESERVED_IN_NAMES, '_')
    .replace(/ {2,}/g, ' ');
  // No hidden files, no "." or ".." names, and no trailing dots, which some file systems drop.
  // A loop, not /^[ .]+|[ .]+$/g, which rescans a long run of dots from each of its characters.
  const cleaned = trimCharacters(spaced, ' .');
  const { base, extension } = splitExtension(cleaned);
  const room = FILE_NAME_LENGTH_MAXIMUM - (extension === '' ? 0 : extension.length + 1);
  const safeBase = truncateText(base, room).trimEnd();
  return joinExtension(safeBase === '' ? 'file' : safeBase, truncateText(extension, 16));
}

/** The `n`th candidate for a name among the owner's files: `notes.txt`, `notes-2.txt`, `notes-3.txt`, … */
export function withCollisionSuffix(name: string, attempt: number): string {
  if (attempt <= 1) return name;
  const { base, extension } = splitExtension(name);
  const suffix = `-${attempt}`;
  const room = FILE_NAME_LENGTH_MAXIMUM - suffix.length - (extension === '' ? 0 : extension.length + 1);
  return joinExtension(truncateText(base, room) + suffix, extension);
}

/**
 * The client's name as it is shown back: no folder part, no control or invisible characters. A
 * name past the length limit is cut in its base, keeping its extension, which says the type.
 */
export function displayFileName(originalName: string): string {
  const cleaned = lastSegment(originalName.normalize('NFC')).replace(INVISIBLE_OR_CONTROL, '').trim();
  if (cleaned.length <= ORIGINAL_NAME_LENGTH_MAXIMUM) return cleaned;
  const { base, extension } = splitExtension(cleaned);
  const keptExtension = truncateText(extension, 16);
  const room = ORIGINAL_NAME_LENGTH_MAXIMUM - (keptExtension === '' ? 0 : keptExtension.length + 1);
  return joinExtension(truncateText(base, room), keptExtension);
}

function unsafePath(reason: string): AppError {
  return new AppError('invalid_parameter', `The file path is not a safe file path: it ${reason}.`, { param: 'file_path' });
}

/** Why a segment list cannot be `<owner id>/<name>`, or undefined when it can. */
function segmentProblem(segments: readonly string[]): string | undefined {
  if (segments.some((segment) => segment === '')) return 'has an empty segment';
  if (segments.some((segment) => segment === '.' || segment === '..')) return 'has a "." or ".." segment';
  if (segments.length !== 2) return 'is not of the form <owner id>/<file name>';
  if (!OWNER_SEGMENT.test(segments[0]!)) return 'does not start with the numeric id of its owner';
  return undefined;
}

/**
 * Checks that `filePath` has the shape of a `file_path` we hand out, `<owner id>/<name>`, and
 * refuses with `invalid_parameter` anything that could mean another place: `..` or `.` segments,
 * absolute paths, backslashes, percent-encoding, NUL and other control characters, empty
 * segments. The message says which rule was broken but never repeats the value.
 */
export function parseFilePath(filePath: unknown): ParsedFilePath {
  if (typeof filePath !== 'string' || filePath === '') throw unsafePath('is empty');
  const normalized = filePath.normalize('NFC');
  if (normalized.length > FILE_PATH_LENGTH_MAXIMUM) throw unsafePath(`is longer than ${FILE_PATH_LENGTH_MAXIMUM} characters`);
  if (CONTROL_CHARACTER.test(normalized)) throw unsafePath('contains a NUL or control character');
  if (normalized.includes('\\')) throw unsafePath('contains a backslash');
  if (PERCENT_ENCODING.test(normalized)) throw unsafePath('contains percent-encoding');
  if (normalized.startsWith('/')) throw unsafePath('is absolute');
  const segments = normalized.split('/');
  const problem = segmentProblem(segments);
  if (problem !== undefined) throw unsafePath(problem);
  return { filePath: normalized, ownerId: Number(segments[0]), name: segments[1]! };
}

/** True when `candidate` is strictly inside `folder` (both absolute, already resolved). */
export function isInsideFolder(folder: string, candidate: string): boolean {
  const relative = path.relative(folder, candidate);
  return relative !== '' && !path.isAbsolute(relative) && relative.split(path.sep)[0] !== '..';
}
