/**
 * Kimi K2: calls in a section of special tokens, each identified as `functions.<name>:<index>`:
 *
 *   <|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0<|tool_call_argument_begin|>{"city": "Paris"}<|tool_call_end|><|tool_calls_section_end|>
 *
 * Some servers write the section tokens singular (`<|tool_call_section_begin|>`); both are read.
 */
import { DelimitedCallBlock, type BlockEnding } from '../blocks/delimited-call-block.js';
import { ForwardSearch } from '../scanning/forward-search.js';
import { argumentsJsonFromText } from '../json/json-calls.js';
import type { OfferedToolSet } from '../vocabulary/offered-tool-set.js';
import { openingText, type OpeningSyntax } from '../blocks/parser-block.js';
import { toolCallEvent, type TextParserEvent } from '../vocabulary/text-tool-call-types.js';

const SECTION_BEGINS = ['<|tool_calls_section_begin|>', '<|tool_call_section_begin|>'];
const SECTION_ENDS = ['<|tool_calls_section_end|>', '<|tool_call_section_end|>'];
const CALL_BEGIN = '<|tool_call_begin|>';
const ARGUMENT_BEGIN = '<|tool_call_argument_begin|>';
const CALL_END = '<|tool_call_end|>';
const NAMESPACE = 'functions.';

/** `functions.get_weather:0` → `get_weather`. */
function nameFromId(id: string): string {
  const withoutNamespace = id.startsWith(NAMESPACE) ? id.slice(NAMESPACE.length) : id;
  return withoutNamespace.replace(/:\d+$/, '');
}

function readCalls(body: string, ending: BlockEnding, tools: OfferedToolSet): TextParserEvent[] | undefined {
  const search = new ForwardSearch(body);
  const events: TextParserEvent[] = [];
  let position = 0;
  for (;;) {
    const begin = search.indexOf(CALL_BEGIN, position);
    if (begin === -1) break;
    const argumentBegin = search.indexOf(ARGUMENT_BEGIN, begin);
    if (argumentBegin === -1) return undefined;
    const end = search.indexOf(CALL_END, argumentBegin);
    if (end === -1 && ending === 'end-of-text') return undefined;
    const name = nameFromId(body.slice(begin + CALL_BEGIN.length, argumentBegin).trim());
    if (!tools.has(name)) return undefined;
    const argumentsEnd = end === -1 ? body.length : end;
    events.push(toolCallEvent(name, argumentsJsonFromText(body.slice(argumentBegin + ARGUMENT_BEGIN.length, argumentsEnd)), 'kimi_k2'));
    position = end === -1 ? body.length : end + CALL_END.length;
  }
  return events.length > 0 ? events : undefined;
}

export const kimiK2Syntax: OpeningSyntax = {
  triggers: '<',
  formats: ['kimi_k2'],
  prefixes: [...SECTION_BEGINS, CALL_BEGIN],
  open(reader, context) {
    const sectionBegin = SECTION_BEGINS.find((token) => reader.accept(token));
    reader.skipWhitespace();
    if (!reader.accept(CALL_BEGIN)) return undefined;
    reader.skipWhitespace();
    reader.accept(NAMESPACE);
    if (reader.offeredName(context.tools) === undefined || !reader.accept(':')) return undefined;
    const block = new DelimitedCallBlock(
      {
        opening: openingText(reader),
        bodyOffset: sectionBegin?.length ?? 0,
        terminators: (sectionBegin === undefined ? [CALL_END] : SECTION_ENDS).map((token) => ({ token, consumed: true })),
        parseBody: (body, ending) => readCalls(body, ending, context.tools),
      },
      context.counter,
    );
    return { length: reader.position - reader.start, block };
  },
};
