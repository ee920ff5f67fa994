/**
 * Calls between `<tool_calls>` tags, in two families' shapes:
 *
 *  - `tool_calls_tag` (Jamba and others): one JSON list, `<tool_calls>[{"name": "get_weather", "arguments": {…}}, …]</tool_calls>`;
 *  - `minimax_m1` (MiniMax-M1): call objects one after another, usually one per line,
 *    `<tool_calls>` ⏎ `{"name": "get_weather", "arguments": {…}}` ⏎ `{"name": "get_time", "arguments": {}}` ⏎ `</tool_calls>`.
 *
 * The same opening reads both; what follows the tag (a list or an object) says which. MiniMax-M1
 * often stops without writing the closing tag, so complete objects the text ends after are calls.
 */
import { readCallObjectOrArrayHead } from '../call-object-head.js';
import { callEvents, textEvents } from '../call-events.js';
import { DelimitedCallBlock, type BlockEnding } from '../delimited-call-block.js';
import { readJsonCallBody } from '../json-call-body.js';
import { readJsonCalls } from '../json-calls.js';
import type { OfferedToolSet } from '../offered-tool-set.js';
import { isWhitespaceCode } from '../opening-reader.js';
import { openingText, type OpeningSyntax } from '../parser-block.js';
import type { TextParserEvent } from '../text-tool-call-types.js';
import { JsonValueScanner, NOT_A_VALUE, STILL_OPEN } from '../value-scanner.js';

const OPEN = '<tool_calls>';
const CLOSE = '</tool_calls>';

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

export const toolCallsTagSyntax: OpeningSyntax = {
  triggers: '<',
  formats: ['tool_calls_tag', 'minimax_m1'],
  prefixes: [OPEN],
  open(reader, context) {
    if (!reader.accept(OPEN)) return undefined;
    reader.skipWhitespace();
    const objects = reader.peek() === 0x7b && context.accepts('minimax_m1');
    if (!objects && !context.accepts('tool_calls_tag')) return undefined;
    if (readCallObjectOrArrayHead(reader, context.tools) === undefined) return undefined;
    const block = new DelimitedCallBlock(
      {
        opening: openingText(reader),
        bodyOffset: OPEN.length,
        terminators: [
          { token: CLOSE, consumed: true },
          { token: OPEN, consumed: false },
        ],
        parseBody: (body, ending) =>
          objects
            ? readCallObjects(body, ending, context.tools)
            : readJsonCallBody(body, ending, { tools: context.tools, format: 'tool_calls_tag', severalObjects: true }),
      },
      context.counter,
    );
    return { length: reader.position - reader.start, block };
  },
};
