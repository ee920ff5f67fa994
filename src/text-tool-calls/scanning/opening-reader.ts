/**
 * Reads a possible opening (`<tool_call>{"name": "…"`, `[TOOL_CALLS]name[ARGS]`, a Harmony header…)
 * character by character inside a bounded window. When the window ends before the text can decide,
 * reading throws NEED_MORE_TEXT and the parser holds the fragment back until more text arrives; at
 * the end of the text, or at the window's bound, reading answers END instead and the opening fails.
 * The decision therefore depends only on the characters, never on how they were chunked.
 */
import type { OfferedToolSet } from '../vocabulary/offered-tool-set.js';
import { OPENING_WHITESPACE_MAXIMUM } from '../vocabulary/parser-limits.js';

/** Thrown (never an Error: it is control flow, so it carries no stack) when an opening needs more text. */
export const NEED_MORE_TEXT: unique symbol = Symbol('need more text');

/** What `peek` answers past the last character of a final window. */
export const END = -1;

/** What `available` answers where `peek` would throw NEED_MORE_TEXT. */
export const MORE_TEXT_NEEDED = -2;

const SPACE = 0x20;
const TAB = 0x09;
const LINE_FEED = 0x0a;
const CARRIAGE_RETURN = 0x0d;

export function isWhitespaceCode(code: number): boolean {
  return code === SPACE || code === LINE_FEED || code === TAB || code === CARRIAGE_RETURN;
}

export class OpeningReader {
  text = '';
  start = 0;
  position = 0;
  /** The furthest index read, so the parser can count the characters an opening examined. */
  furthest = 0;
  private end = 0;
  private final = false;

  /** Points the reader at `text` from `start`, seeing at most up to `end`; `final` when nothing lies beyond `end`. */
  load(text: string, start: number, end: number, final: boolean): this {
    this.text = text;
    this.start = start;
    this.position = start;
    this.furthest = start;
    this.end = end;
    this.final = final;
    return this;
  }

  rewind(): this {
    this.position = this.start;
    this.furthest = this.start;
    return this;
  }

  /** The code unit at the position, END past a final window's end; throws NEED_MORE_TEXT otherwise. */
  peek(offset = 0): number {
    const index = this.position + offset;
    if (index > this.furthest) this.furthest = index;
    if (index < this.end) return this.text.charCodeAt(index);
    if (this.final) return END;
    // A symbol, not an Error: it is control flow on the hot path, caught by the parser, and needs no stack.
    // eslint-disable-next-line @typescript-eslint/only-throw-error -- see above
    throw NEED_MORE_TEXT;
  }

  /** Like `peek`, but answers MORE_TEXT_NEEDED instead of throwing. */
  available(offset: number): number {
    const index = this.position + offset;
    if (index > this.furthest) this.furthest = index;
    if (index < this.end) return this.text.charCodeAt(index);
    return this.final ? END : MORE_TEXT_NEEDED;
  }

  advance(count = 1): void {
    this.position += count;
  }

  /** Whether `token` comes next; moves past it when it does. */
  accept(token: string): boolean {
    for (let index = 0; index < token.length; index += 1) {
      if (this.peek(index) !== token.charCodeAt(index)) return false;
    }
    this.position += token.length;
    return true;
  }

  /** Skips blank space; a run longer than OPENING_WHITESPACE_MAXIMUM is left unread, so the opening fails on it. */
  skipWhitespace(): void {
    for (let run = 0; run < OPENING_WHITESPACE_MAXIMUM && isWhitespaceCode(this.peek()); run += 1) this.position += 1;
  }

  /**
   * Reads the longest run of characters that stays the start of an offered tool's name, and answers
   * it when it is a whole name. The character after it is left for the caller to check.
   */
  offeredName(tools: OfferedToolSet): string | undefined {
    let name = '';
    for (;;) {
      const code = this.peek();
      if (code === END) break;
      const longer = name + String.fromCharCode(code);
      if (!tools.isNamePrefix(longer)) break;
      name = longer;
      this.position += 1;
    }
    return tools.has(name) ? name : undefined;
  }

  /** Reads `"…"` holding at most `charactersMaximum` characters and no escapes; answers its content. */
  shortJsonString(charactersMaximum: number): string | undefined {
    if (this.peek() !== 0x22) return undefined;
    const contentStart = this.position + 1;
    for (let offset = 1; offset <= charactersMaximum + 1; offset += 1) {
      const code = this.peek(offset);
      if (code === 0x22) {
        this.position += offset + 1;
        return this.text.slice(contentStart, this.position - 1);
      }
      if (code === END || code === 0x5c || code === LINE_FEED) return undefined;
    }
    return undefined;
  }

  /** Reads a JSON string, number, true, false or null (a value a call object may carry before its name). */
  skipJsonPrimitive(): boolean {
    const first = this.peek();
    if (first === 0x22) {
      for (let offset = 1; ; offset += 1) {
        const code = this.peek(offset);
        if (code === END || code === LINE_FEED) return false;
        if (code === 0x5c) offset += 1;
        else if (code === 0x22) {
          this.position += offset + 1;
          return true;
        }
      }
    }
    let length = 0;
    while (isPrimitiveCharacter(this.peek(length))) length += 1;
    if (length === 0) return false;
    this.position += length;
    return true;
  }

  /**
   * Reads any JSON value: a primitive, or a bracketed value to its matching bracket (minding
   * strings). Within the window only, so an opening never waits on a large value.
   */
  skipJsonValue(): boolean {
    const first = this.peek();
    if (first !== 0x7b && first !== 0x5b) return this.skipJsonPrimitive();
    let depth = 0;
    let inString = false;
    for (let offset = 0; ; offset += 1) {
      const code = this.peek(offset);
      if (code === END) return false;
      if (inString) {
        if (code === 0x5c) offset += 1;
        else if (code === 0x22) inString = false;
      } else if (code === 0x22) inString = true;
      else if (code === 0x7b || code === 0x5b) depth += 1;
      else if (code === 0x7d || code === 0x5d) {
        depth -= 1;
        if (depth === 0) {
          this.position += offset + 1;
          return true;
        }
      }
    }
  }

  /** Reads `[A-Za-z0-9_.:-]` characters (identifiers, recipients, channel names). */
  word(): string {
    const wordStart = this.position;
    while (isWordCharacter(this.peek())) this.position += 1;
    return this.text.slice(wordStart, this.position);
  }
}

function isPrimitiveCharacter(code: number): boolean {
  // Digits, letters (true/false/null), sign, point and exponent: enough to skip a number or a literal.
  return (
    (code >= 0x30 && code <= 0x39) || (code >= 0x61 && code <= 0x7a) || code === 0x2d || code === 0x2b || code === 0x2e || code === 0x45
  );
}

function isWordCharacter(code: number): boolean {
  return (
    (code >= 0x30 && code <= 0x39) ||
    (code >= 0x41 && code <= 0x5a) ||
    (code >= 0x61 && code <= 0x7a) ||
    code === 0x5f ||
    code === 0x2e ||
    code === 0x3a ||
    code === 0x2d
  );
}
