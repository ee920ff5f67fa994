/**
 * GLM-4.5/4.6/4.7: the tool's name right after `<tool_call>`, then key/value pairs:
 *
 *   <tool_call>get_weather
 *   <arg_key>city</arg_key>
 *   <arg_value>Paris</arg_value>
 *   </tool_call>
 *
 * (4.7 may leave out the line breaks). Values are text, typed by the tool's schema.
 */
import { DelimitedCallBlock, type BlockEnding } from '../blocks/delimited-call-block.js';
import { firstFound, ForwardSearch } from '../scanning/forward-search.js';
import type { OfferedToolSet } from '../vocabulary/offered-tool-set.js';
import type { OpeningReader } from '../scanning/opening-reader.js';
import { openingText, type OpeningSyntax } from '../blocks/parser-block.js';
import { trimTagLineBreaks, typedValue } from '../xml/schema-typed-values.js';
import { toolCallEvent, type TextParserEvent } from '../vocabulary/text-tool-call-types.js';
import { TOOL_CALL_CLOSE, TOOL_CALL_OPEN, TOOL_CALL_TERMINATORS } from '../blocks/tool-call-tags.js';

const KEY_OPEN = '<arg_key>';
const KEY_CLOSE = '</arg_key>';
const VALUE_OPEN = '<arg_value>';
const VALUE_CLOSE = '</arg_value>';
const ESCAPED_LINE_BREAK = '\\n';
/** Escaped line breaks skipped between the name and the first key: models write one, rarely two. */
const ESCAPED_LINE_BREAKS_MAXIMUM = 4;

function readPairs(body: string, ending: BlockEnding, name: string, tools: OfferedToolSet): TextParserEvent[] | undefined {
  // GLM's closing tag is no stop token, so a call the text ends inside was cut off.
  if (ending === 'end-of-text') return undefined;
  const search = new ForwardSearch(body);
  const parameters: Record<string, unknown> = {};
  let position = 0;
  for (;;) {
    const keyOpen = search.indexOf(KEY_OPEN, position);
    if (keyOpen === -1) break;
    const keyClose = search.indexOf(KEY_CLOSE, keyOpen);
    if (keyClose === -1) break;
    const key = body.slice(keyOpen + KEY_OPEN.length, keyClose).trim();
    const valueOpen = search.indexOf(VALUE_OPEN, keyClose);
    const nextKey = search.indexOf(KEY_OPEN, keyClose);
    if (valueOpen === -1 || (nextKey !== -1 && nextKey < valueOpen)) {
      // Repair: a value whose <arg_value> the model left out still ends at its </arg_value>.
      const valueClose = search.indexOf(VALUE_CLOSE, keyClose);
      const closesBeforeNextKey = valueClose !== -1 && (nextKey === -1 || valueClose < nextKey);
      if (closesBeforeNextKey) {
        const value = trimTagLineBreaks(body.slice(keyClose + KEY_CLOSE.length, valueClose));
        parameters[key] = typedValue(value, tools.parameterSchema(name, key));
        position = valueClose + VALUE_CLOSE.length;
      } else position = keyClose + KEY_CLOSE.length; // A key without a value: nothing to pass for it.
      continue;
    }
    const valueClose = search.indexOf(VALUE_CLOSE, valueOpen);
    const boundary = firstFound(valueClose, search.indexOf(KEY_OPEN, valueOpen));
    const valueEnd = boundary === -1 ? body.length : boundary;
    parameters[key] = typedValue(trimTagLineBreaks(body.slice(valueOpen + VALUE_OPEN.length, valueEnd)), tools.parameterSchema(name, key));
    position = valueEnd === valueClose ? valueClose + VALUE_CLOSE.length : valueEnd;
  }
  return [toolCallEvent(name, JSON.stringify(parameters), 'glm')];
}

/**
 * Blank space after the name; repair: also the literal `\n` of double-escaped output
 * (`<tool_call>get_weather\n<arg_key>…`), which SGLang unescapes.
 */
function skipLineBreaksEvenEscaped(reader: OpeningReader): void {
  for (let round = 0; round < ESCAPED_LINE_BREAKS_MAXIMUM; round += 1) {
    reader.skipWhitespace();
    if (!reader.accept(ESCAPED_LINE_BREAK)) return;
  }
}

export const glmSyntax: OpeningSyntax = {
  triggers: '<',
  formats: ['glm'],
  prefixes: [TOOL_CALL_OPEN],
  open(reader, context) {
    if (!reader.accept(TOOL_CALL_OPEN)) return undefined;
    reader.skipWhitespace();
    const name = reader.offeredName(context.tools);
    if (name === undefined) return undefined;
    const nameEnd = reader.position;
    skipLineBreaksEvenEscaped(reader);
    // The name alone proves little ("<tool_call>search the web"); what follows it must be GLM's.
    if (!reader.accept(KEY_OPEN) && !reader.accept(TOOL_CALL_CLOSE)) return undefined;
    reader.position = nameEnd;
    const opening = openingText(reader);
    const block = new DelimitedCallBlock(
      {
        opening,
        bodyOffset: opening.length,
        terminators: TOOL_CALL_TERMINATORS,
        // A value may quote the tags themselves ("Wrap each call in <tool_call> and </tool_call>").
        quietZone: { open: VALUE_OPEN, closes: [VALUE_CLOSE, KEY_OPEN] },
        parseBody: (body, ending) => readPairs(body, ending, name, context.tools),
      },
      context.counter,
    );
    return { length: opening.length, block };
  },
};
