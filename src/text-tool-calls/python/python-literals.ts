/**
 * Reads Python literals as pythonic tool calls write their arguments: strings (' " and tripled, with
 * escapes and r/u/b prefixes, adjacent ones joined), numbers, True/False/None, lists, tuples, dicts
 * and sets. JSON's true/false/null are accepted too, since Llama models mix them in. Nothing is ever
 * evaluated: this is a reader, not an interpreter.
 */
import { isWhitespaceCode } from '../scanning/opening-reader.js';

/** Deeper nesting is refused rather than risking the stack on adversarial input. */
const NESTING_DEPTH_MAXIMUM = 256;

class LiteralError extends Error {}

const KEYWORDS: ReadonlyMap<string, unknown> = new Map<string, unknown>([
  ['True', true],
  ['False', false],
  ['None', null],
  ['true', true],
  ['false', false],
  ['null', null],
]);

const SIMPLE_ESCAPES: Readonly<Record<string, string>> = {
  n: '\n',
  t: '\t',
  r: '\r',
  '0': '\0',
  a: '\x07',
  b: '\b',
  f: '\f',
  v: '\v',
  '\\': '\\',
  "'": "'",
  '"': '"',
  '\n': '',
};

const NUMBER_PATTERN = /^[-+]?(?:0[xX][0-9a-fA-F_]+|0[oO][0-7_]+|0[bB][01_]+|(?:\d[\d_]*(?:\.[\d_]*)?|\.\d[\d_]*)(?:[eE][-+]?\d+)?)$/;

class PythonLiteralReader {
  position = 0;

  constructor(readonly text: string) {}

  skipWhitespace(): void {
    while (this.position < this.text.length && isWhitespaceCode(this.text.charCodeAt(this.position))) this.position += 1;
  }

  peek(): string {
    return this.text[this.position] ?? '';
  }

  expect(character: string): void {
    this.skipWhitespace();
    if (this.peek() !== character) throw new LiteralError(`expected ${character}`);
    this.position += 1;
  }

  /** Reads one literal; throws LiteralError when the text is not one. */
  value(depth = 0): unknown {
    if (depth > NESTING_DEPTH_MAXIMUM) throw new LiteralError('nested too deep');
    this.skipWhitespace();
    const character = this.peek();
    if (character === '[') return this.sequence(']', depth);
    if (character === '(') return this.sequence(')', depth);
    if (character === '{') return this.braces(depth);
    if (this.startsString()) return this.strings();
    const word = this.bareWord();
    if (KEYWORDS.has(word)) return KEYWORDS.get(word);
    if (NUMBER_PATTERN.test(word)) return readNumber(word);
    throw new LiteralError(`not a literal: ${word.slice(0, 20)}`);
  }

  /** Reads a name made of letters, digits and underscores (a keyword argument's name, True, a number). */
  bareWord(): string {
    const start = this.position;
    while (this.position < this.text.length && /[\w.+-]/.test(this.text[this.position]!)) this.position += 1;
    return this.text.slice(start, this.position);
  }

  private sequence(close: string, depth: number): unknown[] {
    this.position += 1;
    const items: unknown[] = [];
    for (;;) {
      this.skipWhitespace();
      if (this.peek() === close) {
        this.position += 1;
        return items;
      }
      items.push(this.value(depth + 1));
      this.skipWhitespace();
      if (this.peek() === ',') this.position += 1;
      else if (this.peek() !== close) throw new LiteralError(`expected , or ${close}`);
    }
  }

  /** A dict, or a set (read as a list) when its first item has no colon. */
  private braces(depth: number): unknown {
    this.position += 1;
    this.skipWhitespace();
    if (this.peek() === '}') {
      this.position += 1;
      return {};
    }
    const first = this.value(depth + 1);
    this.skipWhitespace();
    if (this.peek() !== ':') return [first, ...this.restOfSet(depth)];
    const dictionary: Record<string, unknown> = {};
    let key = first;
    for (;;) {
      this.expect(':');
      dictionary[dictionaryKey(key)] = this.value(depth + 1);
      this.skipWhitespace();
      if (this.peek() === ',') this.position += 1;
      this.skipWhitespace();
      if (this.peek() === '}') {
        this.position += 1;
        return dictionary;
      }
      key = this.value(depth + 1);
    }
  }

  private restOfSet(depth: number): unknown[] {
    const items: unknown[] = [];
    for (;;) {
      this.skipWhitespace();
      if (this.peek() === ',') this.position += 1;
      this.skipWhitespace();
      if (this.peek() === '}') {
        this.position += 1;
        return items;
      }
      items.push(this.value(depth + 1));
    }
  }

  private startsString(): boolean {
    const match = /^[rRuUbBfF]{0,2}['"]/.exec(this.text.slice(this.position, this.position + 3));
    return match !== null;
  }

  /** One string, or several adjacent ones joined as Python joins them. */
  private strings(): string {
    let joined = this.string();
    for (;;) {
      const before = this.position;
      this.skipWhitespace();
      if (!this.startsString()) {
        this.position = before;
        return joined;
      }
      joined += this.string();
    }
  }

  private string(): string {
    let raw = false;
    while (/[rRuUbBfF]/.test(this.peek())) {
      if (this.peek() === 'r' || this.peek() === 'R') raw = true;
      this.position += 1;
    }
    const quote = this.peek();
    const tripled = this.text.startsWith(quote.repeat(3), this.position);
    const delimiter = tripled ? quote.repeat(3) : quote;
    this.position += delimiter.length;
    let content = '';
    for (;;) {
      if (this.position >= this.text.length) throw new LiteralError('unterminated string');
      if (this.text.startsWith(delimiter, this.position)) {
        this.position += delimiter.length;
        return content;
      }
      const character = this.text[this.position]!;
      if (character === '\\') {
        content += raw ? this.rawEscape() : this.escape();
        continue;
      }
      if (!tripled && character === '\n') throw new LiteralError('newline in string');
      content += character;
      this.position += 1;
    }
  }

  private rawEscape(): string {
    const pair = this.text.slice(this.position, this.position + 2);
    this.position += pair.length;
    return pair;
  }

  private escape(): string {
    const code = this.text[this.position + 1] ?? '';
    this.position += 2;
    const simple = SIMPLE_ESCAPES[code];
    if (simple !== undefined) return simple;
    const digits = code === 'x' ? 2 : code === 'u' ? 4 : code === 'U' ? 8 : 0;
    if (digits === 0) return `\\${code}`;
    const hex = this.text.slice(this.position, this.position + digits);
    if (!/^[0-9a-fA-F]+$/.test(hex) || hex.length !== digits) throw new LiteralError('bad escape');
    this.position += digits;
    return String.fromCodePoint(Number.parseInt(hex, 16));
  }
}

function readNumber(word: string): number {
  const digits = word.replaceAll('_', '');
  const negative = digits.startsWith('-');
  const unsigned = digits.replace(/^[-+]/, '');
  const prefix = unsigned.slice(0, 2).toLowerCase();
  const radix = prefix === '0x' ? 16 : prefix === '0o' ? 8 : prefix === '0b' ? 2 : 10;
  const magnitude = radix === 10 ? Number(unsigned) : Number.parseInt(unsigned.slice(2), radix);
  if (!Number.isFinite(magnitude)) throw new LiteralError('not a number');
  return negative ? -magnitude : magnitude;
}

/** Python dict keys may be any literal; JSON keys are strings. */
function dictionaryKey(key: unknown): string {
  return typeof key === 'string' ? key : JSON.stringify(key);
}

/** The value of one Python literal, or undefined when `text` is not exactly one. */
export function parsePythonLiteral(text: string): { value: unknown } | undefined {
  const reader = new PythonLiteralReader(text);
  try {
    const value = reader.value();
    reader.skipWhitespace();
    return reader.position === text.length ? { value } : undefined;
  } catch (error) {
    if (error instanceof LiteralError) return undefined;
    throw error;
  }
}

/** Keyword arguments (`city="Paris", days=3`) as an object, or undefined when they are not all keyword literals. */
export function parsePythonKeywordArguments(text: string): Record<string, unknown> | undefined {
  const reader = new PythonLiteralReader(text);
  const result: Record<string, unknown> = {};
  try {
    for (;;) {
      reader.skipWhitespace();
      if (reader.position >= text.length) return result;
      const name = reader.bareWord();
      if (!/^[A-Za-z_]\w*$/.test(name)) return undefined;
      reader.expect('=');
      result[name] = reader.value();
      reader.skipWhitespace();
      if (reader.position >= text.length) return result;
      reader.expect(',');
    }
  } catch (error) {
    if (error instanceof LiteralError) return undefined;
    throw error;
  }
}
