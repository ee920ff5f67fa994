/**
 * MiniMax-M1: call objects one after another between `<tool_calls>` tags, usually one per line,
 * `<tool_calls>` ⏎ `{"name": "get_weather", "arguments": {…}}` ⏎ `{"name": "get_time", "arguments": {}}` ⏎ `</tool_calls>`.
 * Jamba's `tool_calls_tag` opens with the same tag and a list; an object after the tag is what
 * says MiniMax-M1. It often stops without writing the closing tag, so complete objects the text
 * ends after are calls.
 */
import { readCallObjectOrArrayHead } from '../json/call-object-head.js';
import { callEvents, textEvents } from '../json/call-events.js';
import { DelimitedCallBlock, type BlockEnding } from '../blocks/delimited-call-block.js';
import { readJsonCalls } from '../json/json-calls.js';
import type { OfferedToolSet } from '../vocabulary/offered-tool-set.js';
import { isWhitespaceCode } from '../scanning/opening-reader.js';
import { openingText, type OpeningSyntax } from '../blocks/parser-block.js';
import type { TextParserEvent } from '../vocabulary/text-tool-call-types.js';
import { JsonValueScanner, NOT_A_VALUE, STILL_OPEN } from '../scanning/value-scanner.js';
import { TOOL_CALLS_CLOSE, TOOL_CALLS_OPEN } from './tool-calls-tag-format.js';

/** Whether a JSON object names a tool (`"name": "…"`), so it was meant as a call. */
function namesATool(object: string): boolean {
  try {
    const value: unknown = JSON.parse(object);
    return typeof value === 'object' && value !== null && typeof (value as Record<string, unknown>)['name'] === 'string';
  } catch {
    return false;
  }
}

/** MiniMax-M1's body: JSON call objects separated by blank space; anything else after them is text. */
function readCallObjects(body: string, ending: BlockEnding, tools: OfferedToolSet): TextParserEvent[] | undefined {
  const events: TextParserEvent[] = [];
  let position = 0;
  for (;;) {
    while (position < body.length && isWhitespaceCode(body.charCodeAt(position))) position += 1;
    if (body.charCodeAt(position) !== 0x7b) break;
    const end = new JsonValueScanner().scan(body, position, body.length);
    if (end === NOT_A_VALUE) break;
    if (end === STILL_OPEN) {
      // A last object cut off by the end of the text is no call; one its closing tag cut short is read loosely.
      if (ending !== 'closed') return undefined;
      const calls = readJsonCalls(body.slice(position), tools);
      if (calls === undefined) return undefined;
      events.push(...callEvents(calls.calls, 'minimax_m1'));
      position = body.length;
      break;
    }
    const object = body.slice(position, end);
    const calls = readJsonCalls(object, tools);
    if (calls !== undefined) events.push(...callEvents(calls.calls, 'minimax_m1'));
    // One that names a tool not offered keeps the block text; one that is no call object at all is skipped, as vLLM does.
    else if (namesATool(object)) return undefined;
    position = end;
  }
  if (events.length === 0) return undefined;
  return [...events, ...textEvents(body.slice(position))];
}

export const minimaxM1Syntax: OpeningSyntax = {
  triggers: '<',
  formats: ['minimax_m1'],
  prefixes: [TOOL_CALLS_OPEN],
  open(reader, context) {
    if (!reader.accept(TOOL_CALLS_OPEN)) return undefined;
    reader.skipWhitespace();
    // A list after the tag is Jamba's shape, read by tool_calls_tag's syntax after this one.
    if (reader.peek() !== 0x7b) return undefined;
    if (readCallObjectOrArrayHead(reader, context.tools) === undefined) return undefined;
    const block = new DelimitedCallBlock(
      {
        opening: openingText(reader),
        bodyOffset: TOOL_CALLS_OPEN.length,
        terminators: [
          { token: TOOL_CALLS_CLOSE, consumed: true },
          { token: TOOL_CALLS_OPEN, consumed: false },
        ],
        parseBody: (body, ending) => readCallObjects(body, ending, context.tools),
      },
      context.counter,
    );
    return { length: reader.position - reader.start, block };
  },
};
