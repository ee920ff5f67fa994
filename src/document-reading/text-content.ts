/**
 * Whether bytes are text of a kind, checked chunk by chunk as they arrive: UTF-8 without NUL bytes
 * or other binary control characters; JSON must parse and HTML must contain markup. A renamed
 * image or a broken JSON file is refused with `invalid_file` and a `details.reason` saying why.
 * The files API (src/files/file-content.ts) and knowledge-base documents (document-types.ts) both
 * check text with it, so the two say the same about the same bytes.
 */
import { isUtf8 } from 'node:buffer';
import { DocumentReadingError } from './document-reading-error.js';

export type TextContentKind = 'text' | 'json' | 'html';

export type TextRefusalReason = 'empty' | 'binary_content' | 'not_utf8' | 'control_characters' | 'invalid_json' | 'not_html';

export interface TextContentCheck {
  kind: TextContentKind;
  /** The accepted files as a refusal of binary content lists them: ".txt, .md, .html". */
  acceptedList: string;
  /** Builds the error a refusal throws; by default a DocumentReadingError `invalid_file` about the field `file`. */
  refuse?: (reason: TextRefusalReason, message: string) => Error;
}

/** C0 control characters other than tab, line feed, vertical tab, form feed and carriage return: text files do not hold them, binary ones do. */
const BINARY_CONTROL_CHARACTER = /[\u0001-\u0008\u000e-\u001f]/;
/** A tag, a comment or a doctype: what makes a text file HTML. */
const HTML_MARKUP = /<(?:!doctype\b|!--|\/?[a-z][a-z0-9-]*[\s/>])/i;
/** Characters kept from the end of one chunk, so markup split across two chunks is still seen. */
const MARKUP_CARRY_LENGTH = 64;

function invalidText(reason: TextRefusalReason, message: string): DocumentReadingError {
  return new DocumentReadingError('invalid_file', message, { param: 'file', details: { reason } });
}

function codePointLabel(character: string): string {
  return `U+${character.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;
}

/** The first byte of `bytes` that is a binary control character (see BINARY_CONTROL_CHARACTER), or -1. */
function firstControlByte(bytes: Uint8Array): number {
  for (let index = 0; index < bytes.length; index += 1) {
    const byte = bytes[index]!;
    if (byte < 0x20 && byte !== 0 && (byte < 0x09 || byte > 0x0d)) return byte;
  }
  return -1;
}

/** The bytes a UTF-8 character starting with `lead` may have second (RFC 3629: no overlong forms, surrogates or code points past U+10FFFF). */
function secondByteRange(lead: number): readonly [number, number] {
  if (lead === 0xe0) return [0xa0, 0xbf];
  if (lead === 0xed) return [0x80, 0x9f];
  if (lead === 0xf0) return [0x90, 0xbf];
  if (lead === 0xf4) return [0x80, 0x8f];
  return [0x80, 0xbf];
}

/**
 * How many bytes at the end of `bytes` begin a character that the next chunk may still complete:
 * a valid lead byte followed by fewer continuation bytes than it needs, each in its allowed
 * range. Anything else (0 here) is left to isUtf8, which refuses it now, as a streaming decoder
 * would.
 */
function incompleteTail(bytes: Uint8Array): number {
  const end = bytes.length;
  for (let back = 1; back <= Math.min(3, end); back += 1) {
    const lead = bytes[end - back]!;
    if (lead >= 0x80 && lead < 0xc0) continue;
    if (lead < 0xc2 || lead > 0xf4) return 0;
    const length = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : 2;
    if (length <= back) return 0;
    const [low, high] = secondByteRange(lead);
    const second = bytes[end - back + 1];
    return second === undefined || (second >= low && second <= high) ? back : 0;
  }
  return 0;
}

/** Where JSON.parse stopped, from its message, without the message's quote of the content. */
function jsonErrorPlace(error: unknown): string {
  const message = error instanceof Error ? error.message : '';
  const lineAndColumn = /line (\d+) column (\d+)/.exec(message);
  if (lineAndColumn) return ` at line ${lineAndColumn[1]}, column ${lineAndColumn[2]}`;
  const position = /position (\d+)/.exec(message);
  if (position) return ` at character ${position[1]}`;
  return /end of JSON input/i.test(message) ? ' (it ends too early)' : '';
}

/**
 * Checks bytes chunk by chunk, as they are written to disk, so a binary upload is refused at its
 * first bad chunk. Only a JSON file's text is kept, since parsing needs all of it.
 */
export class TextContentInspector {
  private readonly decoder = new TextDecoder('utf-8', { fatal: true });
  private bytesSeen = 0;
  private readonly jsonPieces: string[] = [];
  private markupSeen = false;
  private carry = '';
  /** Plain text only: the start of a character the last chunk ended in the middle of. */
  private partial: Uint8Array = new Uint8Array(0);
  private readonly refuse: (reason: TextRefusalReason, message: string) => Error;

  constructor(private readonly check: TextContentCheck) {
    this.refuse = check.refuse ?? invalidText;
  }

  inspect(chunk: Uint8Array): void {
    const nulIndex = chunk.indexOf(0);
    if (nulIndex !== -1) {
      throw this.refuse(
        'binary_content',
        `The file is binary, not text: it holds a NUL byte at byte ${this.bytesSeen + nulIndex}. Accepted are UTF-8 text files (${this.check.acceptedList}).`,
      );
    }
    this.bytesSeen += chunk.length;
    if (this.check.kind === 'text') this.inspectBytes(chunk);
    else this.inspectText(this.decode(chunk, true));
  }

  /** Call once all bytes are in; throws when the content as a whole is not of its kind. */
  finish(): void {
    if (this.check.kind !== 'text') this.inspectText(this.decode(new Uint8Array(0), false));
    else if (this.partial.length > 0) throw this.notUtf8();
    if (this.bytesSeen === 0) throw this.refuse('empty', 'The file is empty.');
    if (this.check.kind === 'json') this.requireJson();
    if (this.check.kind === 'html' && !this.markupSeen) {
      throw this.refuse(
        'not_html',
        'The file is named .html but holds no HTML markup (no tag, comment or doctype); upload plain text as .txt.',
      );
    }
  }

  private decode(chunk: Uint8Array, more: boolean): string {
    try {
      return this.decoder.decode(chunk, { stream: more });
    } catch {
      throw this.notUtf8();
    }
  }

  private controlCharacter(character: string): Error {
    return this.refuse(
      'control_characters',
      `The file holds the control character ${codePointLabel(character)}, which text files do not contain; binary files are not accepted.`,
    );
  }

  private notUtf8(): Error {
    return this.refuse(
      'not_utf8',
      `The file is not UTF-8 text (an invalid byte sequence ends before byte ${this.bytesSeen + 1}). Save it as UTF-8 and upload it again.`,
    );
  }

  /**
   * Plain text needs no string: the bytes are checked as UTF-8 where they lie (simdutf, through
   * node:buffer), and control characters are single bytes that no multi-byte character contains.
   * Decoding each chunk for a regular expression cost the event loop 16 to 19 ms a MB of upload.
   */
  private inspectBytes(chunk: Uint8Array): void {
    const bytes = this.partial.length === 0 ? chunk : Buffer.concat([this.partial, chunk]);
    const whole = bytes.length - incompleteTail(bytes);
    const characters = bytes.subarray(0, whole);
    if (!isUtf8(characters)) throw this.notUtf8();
    const control = firstControlByte(characters);
    if (control !== -1) throw this.controlCharacter(String.fromCharCode(control));
    // A copy: a Buffer's slice is a view, and the chunk's memory is not ours to keep.
    this.partial = Uint8Array.from(bytes.subarray(whole));
  }

  private inspectText(text: string): void {
    const control = BINARY_CONTROL_CHARACTER.exec(text);
    if (control) throw this.controlCharacter(control[0]);
    if (this.check.kind === 'json') this.jsonPieces.push(text);
    if (this.check.kind === 'html' && !this.markupSeen) {
      const window = this.carry + text;
      this.markupSeen = HTML_MARKUP.test(window);
      this.carry = window.slice(-MARKUP_CARRY_LENGTH);
    }
  }

  private requireJson(): void {
    try {
      JSON.parse(this.jsonPieces.join(''));
    } catch (error) {
      throw this.refuse('invalid_json', `The file is named .json but is not valid JSON${jsonErrorPlace(error)}.`);
    } finally {
      this.jsonPieces.length = 0;
    }
  }
}
