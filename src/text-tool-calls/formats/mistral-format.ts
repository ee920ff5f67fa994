/**
 * Mistral. Before tokenizer v11: `[TOOL_CALLS][{"name": "get_weather", "arguments": {…}, "id": "…"}]`.
 * From v11 on, one `[TOOL_CALLS]` per call: `[TOOL_CALLS]get_weather[ARGS]{…}`, with
 * `[CALL_ID]abc123def` before `[ARGS]` in some versions (Mistral Small 3.2).
 */
import { BalancedCallBlock } from '../blocks/balanced-call-block.js';
import { readCallObjectOrArrayHead } from '../json/call-object-head.js';
import { argumentsJsonFromText } from '../json/json-calls.js';
import { openingText, type OpeningContext, type OpeningSyntax } from '../blocks/parser-block.js';
import type { OpeningReader } from '../scanning/opening-reader.js';
import { toolCallEvent } from '../vocabulary/text-tool-call-types.js';
import { JsonValueScanner } from '../scanning/value-scanner.js';
import { openJsonValueCall } from '../json/json-value-calls.js';

const TOOL_CALLS = '[TOOL_CALLS]';
const CALL_ID = '[CALL_ID]';
const ARGS = '[ARGS]';

/** `[TOOL_CALLS]` followed by a JSON array (or object) of call objects. */
function openJsonList(reader: OpeningReader, context: OpeningContext): ReturnType<OpeningSyntax['open']> {
  const valueOffset = reader.position - reader.start;
  if (readCallObjectOrArrayHead(reader, context.tools) === undefined) return undefined;
  return openJsonValueCall(reader, context, { valueOffset, format: 'mistral' });
}

/** `[TOOL_CALLS]name[CALL_ID]id[ARGS]{…}`, the call id and `[ARGS]` being optional. */
function openNamedCall(reader: OpeningReader, context: OpeningContext): ReturnType<OpeningSyntax['open']> {
  const name = reader.offeredName(context.tools);
  if (name === undefined) return undefined;
  if (reader.accept(CALL_ID)) {
    reader.word();
    if (!reader.accept(ARGS)) return undefined;
  } else reader.accept(ARGS);
  reader.skipWhitespace();
  if (reader.peek() !== 0x7b) return undefined;
  const opening = openingText(reader);
  const block = new BalancedCallBlock(
    {
      opening,
      valueOffset: opening.length,
      createScanner: () => new JsonValueScanner(context.counter),
      chained: false,
      parseValues: ([argumentsText]) => [toolCallEvent(name, argumentsJsonFromText(argumentsText ?? ''), 'mistral')],
    },
    context.counter,
  );
  return { length: opening.length, block };
}

export const mistralSyntax: OpeningSyntax = {
  triggers: '[',
  formats: ['mistral'],
  prefixes: [TOOL_CALLS],
  open(reader, context) {
    if (!reader.accept(TOOL_CALLS)) return undefined;
    reader.skipWhitespace();
    const next = reader.peek();
    return next === 0x5b || next === 0x7b ? openJsonList(reader, context) : openNamedCall(reader, context);
  },
};
