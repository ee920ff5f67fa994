/**
 * Gemma 3 (and models prompted the same way) put calls in code fences:
 *
 *   ```tool_code
 *   get_weather(city="Paris")
 *   ```
 *
 * (also `print(default_api.get_weather(…))`), or as JSON in a ```json fence, which must carry the
 * call's arguments. A fence whose content names no offered tool is ordinary markdown and stays text.
 */
import { readCallObjectHead, readCallObjectOrArrayHead } from '../json/call-object-head.js';
import { DelimitedCallBlock } from '../blocks/delimited-call-block.js';
import { readJsonCallBody } from '../json/json-call-body.js';
import type { OpeningReader } from '../scanning/opening-reader.js';
import { openingText, type OpeningContext, type OpeningSyntax } from '../blocks/parser-block.js';
import { pythonCallEvents } from './pythonic-format.js';
import type { Terminator } from '../scanning/terminator-search.js';

const TOOL_CODE_FENCE = '```tool_code';
const JSON_FENCE = '```json';
const FENCE_TERMINATORS: readonly Terminator[] = [{ token: '```', consumed: true }];

/** The rest of the fence's first line (spaces only), then any blank space before the content. */
export function readFenceLineEnd(reader: OpeningReader): boolean {
  while (reader.peek() === 0x20 || reader.peek() === 0x09) reader.advance();
  if (!reader.accept('\n') && !reader.accept('\r\n')) return false;
  reader.skipWhitespace();
  return true;
}

/** `print(`, a namespace, then an offered name and `(`. */
function readToolCodeCall(reader: OpeningReader, context: OpeningContext): boolean {
  if (reader.accept('print(')) reader.skipWhitespace();
  if (!reader.accept('default_api.')) reader.accept('functions.');
  if (reader.offeredName(context.tools) === undefined) return false;
  reader.skipWhitespace();
  return reader.accept('(');
}

export const toolCodeFenceSyntax: OpeningSyntax = {
  triggers: '`',
  formats: ['gemma_tool_code'],
  prefixes: [TOOL_CODE_FENCE],
  open(reader, context) {
    if (!reader.accept(TOOL_CODE_FENCE) || !readFenceLineEnd(reader) || !readToolCodeCall(reader, context)) return undefined;
    const block = new DelimitedCallBlock(
      {
        opening: openingText(reader),
        bodyOffset: TOOL_CODE_FENCE.length,
        terminators: FENCE_TERMINATORS,
        parseBody: (body, ending) => {
          if (ending !== 'closed') return undefined;
          const code = body.trim();
          return pythonCallEvents(code, code.startsWith('['), context.tools, 'gemma_tool_code');
        },
      },
      context.counter,
    );
    return { length: reader.position - reader.start, block };
  },
};

export const jsonFenceSyntax: OpeningSyntax = {
  triggers: '`',
  formats: ['gemma_tool_code'],
  prefixes: [JSON_FENCE],
  open(reader, context) {
    if (!reader.accept(JSON_FENCE) || !readFenceLineEnd(reader)) return undefined;
    const mark = reader.position;
    if (readCallObjectOrArrayHead(reader, context.tools) === undefined) {
      reader.position = mark;
      if (readCallObjectHead(reader, context.tools, true)?.wrapped !== true) return undefined;
    }
    const block = new DelimitedCallBlock(
      {
        opening: openingText(reader),
        bodyOffset: JSON_FENCE.length,
        terminators: FENCE_TERMINATORS,
        parseBody: (body, ending) =>
          ending === 'closed'
            ? readJsonCallBody(body.trim(), ending, { tools: context.tools, format: 'gemma_tool_code', rules: { requireArguments: true } })
            : undefined,
      },
      context.counter,
    );
    return { length: reader.position - reader.start, block };
  },
};
