/**
 * Reads the top-level shape of JSON that does not parse: the members of an object or the elements
 * of an array, each as the raw text of its value. A call whose arguments are broken JSON can then
 * still be named, and its arguments handed on as the model wrote them, for the loop to report.
 * Every function here moves forward only, so broken input costs linear time.
 */
import { isWhitespaceCode } from '../scanning/opening-reader.js';

export interface LooseMember {
  key: string;
  /** The value's raw text. */
  value: string;
}

function skipWhitespace(text: string, index: number): number {
  let position = index;
  while (position < text.length && isWhitespaceCode(text.charCodeAt(position))) position += 1;
  return position;
}

function skipString(text: string, index: number): number {
  for (let position = index + 1; position < text.length; position += 1) {
    const code = text.charCodeAt(position);
    if (code === 0x5c) position += 1;
    else if (code === 0x22) return position + 1;
  }
  return text.length;
}

function skipBracketed(text: string, index: number): number {
  let depth = 0;
  for (let position = index; position < text.length; position += 1) {
    const code = text.charCodeAt(position);
    if (code === 0x22) position = skipString(text, position) - 1;
    else if (code === 0x7b || code === 0x5b) depth += 1;
    else if (code === 0x7d || code === 0x5d) {
      depth -= 1;
      if (depth === 0) return position + 1;
    }
  }
  return text.length;
}

/** The end of the value starting at `index`: a string, a bracketed value (to its match) or a bare word. */
function skipValue(text: string, index: number): number {
  const code = text.charCodeAt(index);
  if (code === 0x22) return skipString(text, index);
  if (code === 0x7b || code === 0x5b) return skipBracketed(text, index);
  let position = index;
  while (position < text.length) {
    const next = text.charCodeAt(position);
    if (next === 0x2c || next === 0x7d || next === 0x5d) break;
    position += 1;
  }
  return position;
}

function decodeKey(raw: string): string {
  try {
    const key: unknown = JSON.parse(raw);
    return typeof key === 'string' ? key : raw;
  } catch {
    return raw.slice(1, -1);
  }
}

/** The members of the object `text` starts with, as far as they can be told apart. */
export function looseObjectMembers(text: string): LooseMember[] | undefined {
  let index = skipWhitespace(text, 0);
  if (text.charCodeAt(index) !== 0x7b) return undefined;
  const members: LooseMember[] = [];
  index += 1;
  for (;;) {
    index = skipWhitespace(text, index);
    if (index >= text.length || text.charCodeAt(index) !== 0x22) return members;
    const keyEnd = skipString(text, index);
    const key = decodeKey(text.slice(index, keyEnd));
    index = skipWhitespace(text, keyEnd);
    if (text.charCodeAt(index) !== 0x3a) return members;
    const valueStart = skipWhitespace(text, index + 1);
    const valueEnd = skipValue(text, valueStart);
    members.push({ key, value: text.slice(valueStart, valueEnd).trim() });
    index = skipWhitespace(text, valueEnd);
    if (text.charCodeAt(index) !== 0x2c) return members;
    index += 1;
  }
}

/** The elements of the array `text` starts with, each as raw text. */
export function looseArrayElements(text: string): string[] | undefined {
  let index = skipWhitespace(text, 0);
  if (text.charCodeAt(index) !== 0x5b) return undefined;
  const elements: string[] = [];
  index += 1;
  for (;;) {
    index = skipWhitespace(text, index);
    if (index >= text.length || text.charCodeAt(index) === 0x5d) return elements;
    const end = skipValue(text, index);
    if (end === index) return elements;
    elements.push(text.slice(index, end));
    index = skipWhitespace(text, end);
    if (text.charCodeAt(index) !== 0x2c) return elements;
    index += 1;
  }
}
