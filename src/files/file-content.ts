/**
 * Which files may be uploaded, judged twice: by extension, and by content as the bytes stream
 * in (document reading's text check, src/document-reading/text-content.ts). Every accepted type is
 * UTF-8 text without NUL bytes or other binary control characters; JSON must parse and HTML must
 * contain markup. A renamed image or a broken JSON file is refused with `invalid_file` and a
 * `details.reason` saying why, instead of reaching a prompt.
 */
import { AppError } from '../errors/app-error.js';
import { TextContentInspector, type TextContentKind } from '../document-reading/text-content.js';
import { fileExtension } from './file-paths.js';

export interface AcceptedFileType {
  extension: string;
  /** What we store and report, whatever the client declared: browsers disagree about text types. */
  contentType: string;
  kind: TextContentKind;
}

export const ACCEPTED_FILE_TYPES: readonly AcceptedFileType[] = [
  { extension: 'txt', contentType: 'text/plain', kind: 'text' },
  { extension: 'md', contentType: 'text/markdown', kind: 'text' },
  { extension: 'json', contentType: 'application/json', kind: 'json' },
  { extension: 'csv', contentType: 'text/csv', kind: 'text' },
  { extension: 'html', contentType: 'text/html', kind: 'html' },
];

const ACCEPTED_LIST = ACCEPTED_FILE_TYPES.map((type) => `.${type.extension}`).join(', ');

export type InvalidFileReason =
  'unsupported_type' | 'empty' | 'binary_content' | 'not_utf8' | 'control_characters' | 'invalid_json' | 'not_html';

export function invalidFile(reason: InvalidFileReason, message: string): AppError {
  return new AppError('invalid_file', message, { param: 'file', details: { reason } });
}

/** The accepted type of a file name, or `invalid_file` naming the accepted extensions. */
export function acceptedFileType(fileName: string): AcceptedFileType {
  const extension = fileExtension(fileName);
  const type = ACCEPTED_FILE_TYPES.find((candidate) => candidate.extension === extension);
  if (type === undefined) {
    const found = extension === '' ? 'has no extension' : `has the extension .${extension}`;
    throw invalidFile('unsupported_type', `The file ${found}; accepted are ${ACCEPTED_LIST} files.`);
  }
  return type;
}

/**
 * Checks a file's bytes chunk by chunk, as they are written to disk, so a binary upload is
 * refused at its first bad chunk: document reading's text check, refusing with the files API's
 * `invalid_file`.
 */
export class FileContentInspector extends TextContentInspector {
  constructor(type: AcceptedFileType) {
    super({ kind: type.kind, acceptedList: ACCEPTED_LIST, refuse: invalidFile });
  }
}
