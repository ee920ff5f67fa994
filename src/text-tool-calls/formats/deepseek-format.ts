/**
 * DeepSeek's special tokens (full-width bars ｜ and ▁ word marks, exactly as the tokenizer writes them).
 *
 * V3 / R1:  <｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>get_weather
 *           ```json
 *           {"city": "Paris"}
 *           ```<｜tool▁call▁end｜><｜tool▁calls▁end｜>
 * V3.1+:    <｜tool▁calls▁begin｜><｜tool▁call▁begin｜>get_weather<｜tool▁sep｜>{"city": "Paris"}<｜tool▁call▁end｜><｜tool▁calls▁end｜>
 *
 * The shape after the first call's separator tells the two apart; each call reports its own.
 */
import { DelimitedCallBlock, type BlockEnding } from '../blocks/delimited-call-block.js';
import { ForwardSearch } from '../scanning/forward-search.js';
import { argumentsJsonFromText } from '../json/json-calls.js';
import { openingText, type OpeningContext, type OpeningSyntax } from '../blocks/parser-block.js';
import { isWhitespaceCode, type OpeningReader } from '../scanning/opening-reader.js';
import { toolCallEvent, type TextParserEvent, type TextToolCallFormat } from '../vocabulary/text-tool-call-types.js';

const CALLS_BEGIN = '<｜tool▁calls▁begin｜>';
const CALLS_END = '<｜tool▁calls▁end｜>';
const CALL_BEGIN = '<｜tool▁call▁begin｜>';
const CALL_END = '<｜tool▁call▁end｜>';
const SEPARATOR = '<｜tool▁sep｜>';
const FENCE = '```';

/** V3's arguments: a ```json fence after the name's line; its content, or the text itself without one. */
function fencedArguments(text: string): string {
  const open = text.indexOf(FENCE);
  if (open === -1) return text;
  const contentStart = text.indexOf('\n', open);
  const close = text.lastIndexOf(FENCE);
  if (contentStart === -1 || close <= open) return text.slice(open + FENCE.length);
  return text.slice(contentStart + 1, close);
}

function readCall(segment: string, context: OpeningContext): TextParserEvent | undefined {
  const separator = segment.indexOf(SEPARATOR);
  if (separator === -1) return undefined;
  const before = segment.slice(0, separator).trim();
  const after = segment.slice(separator + SEPARATOR.length);
  const lineEnd = after.search(/[\n`]/);
  const v3Name = (lineEnd === -1 ? after : after.slice(0, lineEnd)).trim();
  let format: TextToolCallFormat;
  let name: string;
  let argumentsText: string;
  if (before === 'function' && context.tools.has(v3Name) && lineEnd !== -1) {
    format = 'deepseek_v3';
    name = v3Name;
    argumentsText = fencedArguments(after.slice(lineEnd));
  } else {
    format = 'deepseek_v31';
    name = before;
    argumentsText = after;
  }
  if (!context.tools.has(name) || !context.accepts(format)) return undefined;
  return toolCallEvent(name, argumentsJsonFromText(argumentsText), format);
}

function readCalls(body: string, ending: BlockEnding, context: OpeningContext): TextParserEvent[] | undefined {
  const search = new ForwardSearch(body);
  const events: TextParserEvent[] = [];
  let position = 0;
  for (;;) {
    const begin = search.indexOf(CALL_BEGIN, position);
    if (begin === -1) break;
    const end = search.indexOf(CALL_END, begin);
    // Only the last call of a standalone block may lack its end token: the block's terminator took it.
    if (end === -1 && ending === 'end-of-text') return undefined;
    const segmentEnd = end === -1 ? body.length : end;
    const event = readCall(body.slice(begin + CALL_BEGIN.length, segmentEnd), context);
    if (event === undefined) return undefined;
    events.push(event);
    position = end === -1 ? body.length : end + CALL_END.length;
  }
  return events.length > 0 ? events : undefined;
}

/** After `<｜tool▁call▁begin｜>`: the first call's name and separator, in either version's order. */
function readFirstCall(reader: OpeningReader, context: OpeningContext): boolean {
  const mark = reader.position;
  if (reader.accept('function') && reader.accept(SEPARATOR)) {
    const name = reader.offeredName(context.tools);
    const next = reader.peek();
    if (name !== undefined && (isWhitespaceCode(next) || next === 0x60)) return context.accepts('deepseek_v3');
  }
  reader.position = mark;
  return reader.offeredName(context.tools) !== undefined && reader.accept(SEPARATOR) && context.accepts('deepseek_v31');
}

export const deepSeekSyntax: OpeningSyntax = {
  triggers: '<',
  formats: ['deepseek_v3', 'deepseek_v31'],
  prefixes: [CALLS_BEGIN, CALL_BEGIN],
  open(reader, context) {
    const wrapped = reader.accept(CALLS_BEGIN);
    reader.skipWhitespace();
    if (!reader.accept(CALL_BEGIN) || !readFirstCall(reader, context)) return undefined;
    const block = new DelimitedCallBlock(
      {
        opening: openingText(reader),
        bodyOffset: wrapped ? CALLS_BEGIN.length : 0,
        terminators: [{ token: wrapped ? CALLS_END : CALL_END, consumed: true }],
        parseBody: (body, ending) => readCalls(body, ending, context),
      },
      context.counter,
    );
    return { length: reader.position - reader.start, block };
  },
};
