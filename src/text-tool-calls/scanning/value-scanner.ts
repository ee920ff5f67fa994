/**
 * Finds where a bracketed value (`{…}`, `[…]`) ends in text that arrives in pieces, one character at
 * a time, keeping only its depth and whether it is inside a string. The JSON scanner knows JSON
 * strings; the Python scanner knows Python's quotes, including triple-quoted strings.
 */
import { isWhitespaceCode } from './opening-reader.js';
import type { WorkCounter } from './work-counter.js';

/** `scan` answers: the index just after the value, STILL_OPEN, or NOT_A_VALUE when no bracket starts it. */
export const STILL_OPEN = -1;
export const NOT_A_VALUE = -2;

export interface ValueScanner {
  /** Scans `text[from, to)`. */
  scan(text: string, from: number, to: number): number;
}

const BACKSLASH = 0x5c;
const DOUBLE_QUOTE = 0x22;
const SINGLE_QUOTE = 0x27;

function opensBracket(code: number): boolean {
  return code === 0x7b || code === 0x5b || code === 0x28;
}

function closesBracket(code: number): boolean {
  return code === 0x7d || code === 0x5d || code === 0x29;
}

export class JsonValueScanner implements ValueScanner {
  private depth = 0;
  private inString = false;
  private escaped = false;

  constructor(private readonly counter?: WorkCounter) {}

  scan(text: string, from: number, to: number): number {
    let index = from;
    try {
      for (; index < to; index += 1) {
        const code = text.charCodeAt(index);
        if (this.inString) {
          if (this.escaped) this.escaped = false;
          else if (code === BACKSLASH) this.escaped = true;
          else if (code === DOUBLE_QUOTE) this.inString = false;
        } else if (code === DOUBLE_QUOTE) {
          this.inString = true;
        } else if (code === 0x7b || code === 0x5b) {
          this.depth += 1;
        } else if (code === 0x7d || code === 0x5d) {
          this.depth -= 1;
          if (this.depth === 0) return index + 1;
        } else if (this.depth === 0 && !isWhitespaceCode(code)) {
          return NOT_A_VALUE;
        }
      }
      return STILL_OPEN;
    } finally {
      this.counter?.add(index - from + 1);
    }
  }
}

/**
 * Python strings may be quoted with ' or " and tripled; a run of quote characters is only understood
 * once the character after it arrives, so the scanner counts the run instead of looking ahead.
 */
export class PythonValueScanner implements ValueScanner {
  private depth = 0;
  /** The quote of the open string, 0 outside strings. */
  private quote = 0;
  private tripled = false;
  private escaped = false;
  /** Consecutive quote characters just seen (outside a string: a possible opening; inside a tripled one: a possible close). */
  private quoteRun = 0;
  private runQuote = 0;

  constructor(private readonly counter?: WorkCounter) {}

  scan(text: string, from: number, to: number): number {
    let index = from;
    try {
      for (; index < to; index += 1) {
        const result = this.step(text.charCodeAt(index));
        if (result === NOT_A_VALUE) return NOT_A_VALUE;
        if (result === 1) return index + 1;
      }
      return STILL_OPEN;
    } finally {
      this.counter?.add(index - from + 1);
    }
  }

  /** 1 when this character closed the value. */
  private step(code: number): number {
    if (this.quote !== 0) return this.stepInString(code);
    if (this.quoteRun > 0) {
      if (code === this.runQuote && this.quoteRun < 3) {
        this.quoteRun += 1;
        if (this.quoteRun === 3) this.openString(true);
        return 0;
      }
      const run = this.quoteRun;
      this.quoteRun = 0;
      // One quote opened a string this character belongs to; two were an empty string.
      if (run === 1) {
        this.openString(false);
        return this.stepInString(code);
      }
    }
    if (this.depth === 0) {
      // Outside the value only whitespace may precede its opening bracket.
      if (opensBracket(code)) this.depth = 1;
      else if (!isWhitespaceCode(code)) return NOT_A_VALUE;
      return 0;
    }
    if (code === SINGLE_QUOTE || code === DOUBLE_QUOTE) {
      this.quoteRun = 1;
      this.runQuote = code;
      return 0;
    }
    if (opensBracket(code)) {
      this.depth += 1;
      return 0;
    }
    if (closesBracket(code)) {
      this.depth -= 1;
      return this.depth === 0 ? 1 : 0;
    }
    return 0;
  }

  private openString(tripled: boolean): void {
    this.quote = this.runQuote;
    this.tripled = tripled;
    this.quoteRun = 0;
  }

  private stepInString(code: number): number {
    if (this.escaped) {
      this.escaped = false;
      this.quoteRun = 0;
      return 0;
    }
    if (code === BACKSLASH) {
      this.escaped = true;
      this.quoteRun = 0;
      return 0;
    }
    if (code !== this.quote) {
      this.quoteRun = 0;
      return 0;
    }
    if (!this.tripled) {
      this.quote = 0;
      return 0;
    }
    this.quoteRun += 1;
    if (this.quoteRun === 3) {
      this.quote = 0;
      this.quoteRun = 0;
    }
    return 0;
  }
}
