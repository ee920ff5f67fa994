/**
 * Gemma 4's argument notation, which is not JSON: `{city:<|"|>Paris<|"|>,days:3,tags:[<|"|>a<|"|>]}`.
 * Keys are bare (or quoted like strings), strings sit between `<|"|>` tokens and may hold any
 * character, numbers, true, false and null are bare, and a model sometimes writes a JSON string. No library reads it, so this file does: a
 * scanner that finds where a value ends while it streams, and a reader that turns a complete one into
 * JSON. Both move forward only; nesting deeper than a bound is not read.
 */
import { isWhitespaceCode } from '../scanning/opening-reader.js';
import { NOT_A_VALUE, STILL_OPEN, type ValueScanner } from '../scanning/value-scanner.js';
import type { WorkCounter } from '../scanning/work-counter.js';

export const GEMMA_QUOTE = '<|"|>';
/** Deeper nesting than this is no model's arguments; it is not read (and the recursion stays shallow). */
const NESTING_MAXIMUM = 64;
const NUMBER_PATTERN = /^-?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?$/;

/** Where a `{…}` or `[…]` value ends, minding `<|"|>` strings, across pieces of text. */
export class GemmaValueScanner implements ValueScanner {
  private depth = 0;
  private inString = false;
  /** How many characters of `<|"|>` were just seen. */
  private quoteMatched = 0;

  constructor(private readonly counter?: WorkCounter) {}

  scan(text: string, from: number, to: number): number {
    let index = from;
    try {
      for (; index < to; index += 1) {
        const code = text.charCodeAt(index);
        if (this.matchQuote(code)) {
          this.inString = !this.inString;
          continue;
        }
        if (this.inString || this.quoteMatched > 0) continue;
        if (code === 0x7b || code === 0x5b) this.depth += 1;
        else if (code === 0x7d || code === 0x5d) {
          this.depth -= 1;
          if (this.depth === 0) return index + 1;
          if (this.depth < 0) return NOT_A_VALUE;
        } else if (this.depth === 0 && !isWhitespaceCode(code)) return NOT_A_VALUE;
      }
      return STILL_OPEN;
    } finally {
      this.counter?.add(index - from + 1);
    }
  }

  /** Feeds one character to the `<|"|>` matcher; true when it completed the token. */
  private matchQuote(code: number): boolean {
    if (code === GEMMA_QUOTE.charCodeAt(this.quoteMatched)) {
      this.quoteMatched += 1;
      if (this.quoteMatched < GEMMA_QUOTE.length) return false;
      this.quoteMatched = 0;
      return true;
    }
    // The token's characters are all different, so a mismatch restarts at this character.
    this.quoteMatched = code === GEMMA_QUOTE.charCodeAt(0) ? 1 : 0;
    return false;
  }
}

class GemmaValueReader {
  position = 0;

  constructor(private readonly text: string) {}

  private skipWhitespace(): void {
    while (this.position < this.text.length && isWhitespaceCode(this.text.charCodeAt(this.position))) this.position += 1;
  }

  /** A `<|"|>` string; an unterminated one takes the rest of the text, as the engines read it. */
  private string(): string {
    const start = this.position + GEMMA_QUOTE.length;
    const end = this.text.indexOf(GEMMA_QUOTE, start);
    this.position = end === -1 ? this.text.length : end + GEMMA_QUOTE.length;
    return this.text.slice(start, end === -1 ? this.text.length : end);
  }

  /** A bare scalar up to the next `,`, `}` or `]`: a number, true, false, null, or else its text. */
  private bare(): unknown {
    const start = this.position;
    while (this.position < this.text.length && !',}]'.includes(this.text[this.position]!)) this.position += 1;
    const raw = this.text.slice(start, this.position).trim();
    if (raw === 'true') return true;
    if (raw === 'false') return false;
    if (raw === 'null') return null;
    if (NUMBER_PATTERN.test(raw)) return Number(raw);
    return raw;
  }

  /** A JSON string some outputs write instead of Gemma's quotes (`query:"say \\"hi\\""`), read as JSON reads it. */
  private jsonString(): string {
    const start = this.position;
    let end = start + 1;
    while (end < this.text.length && this.text[end] !== '"') end += this.text[end] === '\\' ? 2 : 1;
    this.position = Math.min(end + 1, this.text.length);
    try {
      return JSON.parse(this.text.slice(start, this.position)) as string;
    } catch {
      return this.text.slice(start + 1, end);
    }
  }

  value(depth: number): unknown {
    this.skipWhitespace();
    if (this.text.startsWith(GEMMA_QUOTE, this.position)) return this.string();
    const code = this.text.charCodeAt(this.position);
    if (code === 0x22) return this.jsonString();
    if (code === 0x7b) return this.object(depth + 1);
    if (code === 0x5b) return this.array(depth + 1);
    return this.bare();
  }

  private key(): string | undefined {
    this.skipWhitespace();
    if (this.text.startsWith(GEMMA_QUOTE, this.position)) return this.string();
    const colon = this.text.indexOf(':', this.position);
    if (colon === -1) return undefined;
    const key = this.text.slice(this.position, colon).trim();
    this.position = colon;
    return key;
  }

  object(depth: number): Record<string, unknown> | undefined {
    if (depth > NESTING_MAXIMUM) return undefined;
    this.position += 1;
    const result: Record<string, unknown> = {};
    for (;;) {
      this.skipWhitespace();
      if (this.position >= this.text.length) return undefined;
      if (this.text[this.position] === '}') {
        this.position += 1;
        return result;
      }
      const key = this.key();
      this.skipWhitespace();
      if (key === undefined || this.text[this.position] !== ':') return undefined;
      this.position += 1;
      const value = this.value(depth);
      if (value === undefined) return undefined;
      result[key] = value;
      this.skipWhitespace();
      if (this.text[this.position] === ',') this.position += 1;
      else if (this.text[this.position] !== '}') return undefined;
    }
  }

  private array(depth: number): unknown[] | undefined {
    if (depth > NESTING_MAXIMUM) return undefined;
    this.position += 1;
    const result: unknown[] = [];
    for (;;) {
      this.skipWhitespace();
      if (this.position >= this.text.length) return undefined;
      if (this.text[this.position] === ']') {
        this.position += 1;
        return result;
      }
      const value = this.value(depth);
      if (value === undefined) return undefined;
      result.push(value);
      this.skipWhitespace();
      if (this.text[this.position] === ',') this.position += 1;
      else if (this.text[this.position] !== ']') return undefined;
    }
  }
}

/** The arguments `{…}` as JSON text, or undefined when they are not Gemma 4's notation. */
export function gemmaArgumentsJson(text: string): string | undefined {
  const reader = new GemmaValueReader(text.trim());
  const value = reader.object(0);
  return value === undefined ? undefined : JSON.stringify(value);
}
