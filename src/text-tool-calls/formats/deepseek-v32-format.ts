/**
 * DeepSeek V3.2's "DSML" calls (full-width bars, exactly as the tokenizer writes them):
 *
 *   <｜DSML｜function_calls>
 *   <｜DSML｜invoke name="get_weather">
 *   <｜DSML｜parameter name="city" string="true">Paris</｜DSML｜parameter>
 *   <｜DSML｜parameter name="days" string="false">3</｜DSML｜parameter>
 *   </｜DSML｜invoke>
 *   </｜DSML｜function_calls>
 *
 * DeepSeek V4 names the section `tool_calls`; both are read. A parameter marked `string="true"` is
 * text, typed by the tool's schema like other XML-style values; one marked `string="false"` is JSON,
 * read as such (and typed by the schema when it is not JSON).
 */
import { textEvents } from '../json/call-events.js';
import { DelimitedCallBlock, type BlockEnding } from '../blocks/delimited-call-block.js';
import { firstFound, ForwardSearch } from '../scanning/forward-search.js';
import { argumentsJsonFromText } from '../json/json-calls.js';
import type { OfferedToolSet } from '../vocabulary/offered-tool-set.js';
import { openingText, type OpeningSyntax } from '../blocks/parser-block.js';
import { typedValue } from '../xml/schema-typed-values.js';
import { toolCallEvent, type TextParserEvent } from '../vocabulary/text-tool-call-types.js';

const SECTIONS = ['function_calls', 'tool_calls'];
const MARK = '<｜DSML｜';
const CLOSE_MARK = '</｜DSML｜';
const INVOKE_OPEN = '<｜DSML｜invoke name="';
const INVOKE_CLOSE = '</｜DSML｜invoke>';
const PARAMETER_OPEN = '<｜DSML｜parameter name="';
const PARAMETER_CLOSE = '</｜DSML｜parameter>';
const JSON_MARKER = 'string="false"';

function parameterValue(raw: string, isJson: boolean, schema: unknown): unknown {
  if (isJson) {
    try {
      return JSON.parse(raw) as unknown;
    } catch {
      // Not JSON after all: typed by the schema as text.
    }
  }
  return typedValue(raw, schema);
}

function readArguments(body: string, name: string, tools: OfferedToolSet): string {
  // Some outputs put a JSON object in the invoke instead of parameters (SGLang reads it as the arguments).
  const trimmed = body.trim();
  if (trimmed.startsWith('{') && !trimmed.includes(PARAMETER_OPEN)) return argumentsJsonFromText(trimmed);
  const search = new ForwardSearch(body);
  const parameters: Record<string, unknown> = {};
  let position = 0;
  for (;;) {
    const open = search.indexOf(PARAMETER_OPEN, position);
    if (open === -1) break;
    const headEnd = search.indexOf('>', open);
    if (headEnd === -1) break;
    const head = body.slice(open + PARAMETER_OPEN.length, headEnd);
    const key = head.slice(0, head.indexOf('"') === -1 ? head.length : head.indexOf('"'));
    const close = search.indexOf(PARAMETER_CLOSE, headEnd);
    // A value without its close ends where the next parameter starts.
    const boundary = firstFound(close, search.indexOf(PARAMETER_OPEN, headEnd));
    const valueEnd = boundary === -1 ? body.length : boundary;
    parameters[key] = parameterValue(body.slice(headEnd + 1, valueEnd), head.includes(JSON_MARKER), tools.parameterSchema(name, key));
    position = valueEnd === close ? close + PARAMETER_CLOSE.length : valueEnd;
  }
  return JSON.stringify(parameters);
}

function readInvokes(body: string, ending: BlockEnding, tools: OfferedToolSet): TextParserEvent[] | undefined {
  const search = new ForwardSearch(body);
  const events: TextParserEvent[] = [];
  let position = 0;
  for (;;) {
    const open = search.indexOf(INVOKE_OPEN, position);
    if (open === -1) break;
    events.push(...textEvents(body.slice(position, open)));
    const nameEnd = search.indexOf('">', open);
    if (nameEnd === -1) return undefined;
    const name = body.slice(open + INVOKE_OPEN.length, nameEnd);
    if (!tools.has(name)) return undefined;
    const close = search.indexOf(INVOKE_CLOSE, nameEnd);
    const next = search.indexOf(INVOKE_OPEN, nameEnd);
    const closed = close !== -1 && (next === -1 || close < next);
    // An invoke the text ends inside was cut off.
    if (!closed && ending === 'end-of-text') return undefined;
    const invokeEnd = closed ? close : next === -1 ? body.length : next;
    events.push(toolCallEvent(name, readArguments(body.slice(nameEnd + 2, invokeEnd), name, tools), 'deepseek_v32'));
    position = closed ? close + INVOKE_CLOSE.length : invokeEnd;
  }
  events.push(...textEvents(body.slice(position)));
  return events.some((event) => event.type === 'tool-call') ? events : undefined;
}

export const deepSeekV32Syntax: OpeningSyntax = {
  triggers: '<',
  formats: ['deepseek_v32'],
  prefixes: SECTIONS.map((section) => `${MARK}${section}>`),
  open(reader, context) {
    const section = SECTIONS.find((candidate) => reader.accept(`${MARK}${candidate}>`));
    if (section === undefined) return undefined;
    const sectionOpen = `${MARK}${section}>`;
    reader.skipWhitespace();
    if (!reader.accept(INVOKE_OPEN) || reader.offeredName(context.tools) === undefined || !reader.accept('">')) return undefined;
    const block = new DelimitedCallBlock(
      {
        opening: openingText(reader),
        bodyOffset: sectionOpen.length,
        terminators: [
          { token: `${CLOSE_MARK}${section}>`, consumed: true },
          { token: sectionOpen, consumed: false },
        ],
        parseBody: (body, ending) => readInvokes(body, ending, context.tools),
      },
      context.counter,
    );
    return { length: reader.position - reader.start, block };
  },
};
