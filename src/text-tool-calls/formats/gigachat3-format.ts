/**
 * GigaChat 3: a call is a message of its own, opened by the role header `function call`,
 *
 *   <|message_sep|>
 *
 *   function call<|role_sep|>
 *   {"name": "get_weather", "arguments": {"city": "Paris"}}
 *
 * and GigaChat 3.1 opens it with one token instead: `<|function_call|>{"name": …}`. The call is the
 * JSON object after the header, read to its closing brace as bare JSON calls are; the end-of-sequence
 * token `</s>` the model may write after it is dropped (trailing-token-syntax.ts).
 */
import { readCallObjectHead } from '../json/call-object-head.js';
import type { OpeningReader } from '../scanning/opening-reader.js';
import type { OpeningSyntax } from '../blocks/parser-block.js';
import { trailingTokenSyntax } from '../blocks/trailing-token-syntax.js';
import { openJsonValueCall } from '../json/json-value-calls.js';

const MESSAGE_SEPARATOR = '<|message_sep|>';
const ROLE_SEPARATOR = '<|role_sep|>';
const FUNCTION_CALL_ROLE = 'function call';
const FUNCTION_CALL_TOKEN = '<|function_call|>';
const END_OF_SEQUENCE = '</s>';

/** The header before the JSON, in either version's spelling. */
function readHeader(reader: OpeningReader): boolean {
  if (reader.accept(FUNCTION_CALL_TOKEN)) return true;
  if (!reader.accept(MESSAGE_SEPARATOR)) return false;
  reader.skipWhitespace();
  if (!reader.accept(FUNCTION_CALL_ROLE)) return false;
  reader.skipWhitespace();
  return reader.accept(ROLE_SEPARATOR);
}

export const gigaChat3Syntax: OpeningSyntax = {
  triggers: '<',
  formats: ['gigachat3'],
  prefixes: [MESSAGE_SEPARATOR, FUNCTION_CALL_TOKEN],
  open(reader, context) {
    if (!readHeader(reader)) return undefined;
    reader.skipWhitespace();
    const valueOffset = reader.position - reader.start;
    if (readCallObjectHead(reader, context.tools, false) === undefined) return undefined;
    // As for bare JSON, an object without `arguments` is no call (SGLang's reading).
    return openJsonValueCall(reader, context, { valueOffset, format: 'gigachat3', rules: { requireArguments: true } });
  },
};

export const gigaChat3EndSyntax: OpeningSyntax = trailingTokenSyntax(END_OF_SEQUENCE, ['gigachat3']);
