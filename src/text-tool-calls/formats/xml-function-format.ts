/**
 * Qwen3-Coder's XML calls (seed 004 format 1):
 *
 *   <tool_call>
 *   <function=get_weather>
 *   <parameter=city>
 *   Paris
 *   </parameter>
 *   </function>
 *   </tool_call>
 *
 * with or without the `<tool_call>` wrapper. Parameter values are text, typed by the tool's schema.
 */
import { textEvents } from '../json/call-events.js';
import { DelimitedCallBlock, type BlockEnding } from '../blocks/delimited-call-block.js';
import { firstFound, ForwardSearch } from '../scanning/forward-search.js';
import type { OfferedToolSet } from '../vocabulary/offered-tool-set.js';
import { openingText, type OpeningContext, type OpeningSyntax } from '../blocks/parser-block.js';
import { trimTagLineBreaks, typedValue } from '../xml/schema-typed-values.js';
import type { OpeningReader } from '../scanning/opening-reader.js';
import { toolCallEvent, type TextParserEvent, type TextToolCallFormat } from '../vocabulary/text-tool-call-types.js';
import { TOOL_CALL_OPEN, TOOL_CALL_TERMINATORS } from '../blocks/tool-call-tags.js';

export const FUNCTION_OPEN = '<function=';
export const FUNCTION_CLOSE = '</function>';
const PARAMETER_OPEN = '<parameter=';
const PARAMETER_CLOSE = '</parameter>';

/** What of a value's surrounding line breaks belongs to the tags rather than to the value. */
export type ValueTrimming = (value: string) => string;

/** The parameters of one function body as a JSON object, each value typed by the tool's schema. */
function parametersJson(body: string, toolName: string, tools: OfferedToolSet, trimValue: ValueTrimming = trimTagLineBreaks): string {
  const search = new ForwardSearch(body);
  const parameters: Record<string, unknown> = {};
  let position = 0;
  for (;;) {
    const open = search.indexOf(PARAMETER_OPEN, position);
    if (open === -1) break;
    const nameEnd = search.indexOf('>', open);
    if (nameEnd === -1) break;
    const key = body.slice(open + PARAMETER_OPEN.length, nameEnd).trim();
    const close = search.indexOf(PARAMETER_CLOSE, nameEnd);
    // A value without its close ends where the next parameter starts (models do forget).
    const boundary = firstFound(close, search.indexOf(PARAMETER_OPEN, nameEnd));
    const valueEnd = boundary === -1 ? body.length : boundary;
    parameters[key] = typedValue(trimValue(body.slice(nameEnd + 1, valueEnd)), tools.parameterSchema(toolName, key));
    position = valueEnd === close ? close + PARAMETER_CLOSE.length : valueEnd;
  }
  return JSON.stringify(parameters);
}

/** How a wrapper other than this format's own reads its body: the format it reports, and how it trims values. */
export interface WrapperReading {
  format?: TextToolCallFormat;
  trimValue?: ValueTrimming;
}

/**
 * Every `<function=…>…</function>` in a wrapped body, with any other non-blank text kept in order.
 * Seed-OSS writes the same body in its own wrapper, so the format reported is the caller's.
 */
export function readWrappedBody(
  body: string,
  ending: BlockEnding,
  tools: OfferedToolSet,
  wrapper: WrapperReading = {},
): TextParserEvent[] | undefined {
  const { format = 'xml_function', trimValue = trimTagLineBreaks } = wrapper;
  const search = new ForwardSearch(body);
  const events: TextParserEvent[] = [];
  let position = 0;
  for (;;) {
    const open = search.indexOf(FUNCTION_OPEN, position);
    if (open === -1) break;
    events.push(...textEvents(body.slice(position, open)));
    const nameEnd = search.indexOf('>', open);
    if (nameEnd === -1) return undefined;
    const name = body.slice(open + FUNCTION_OPEN.length, nameEnd).trim();
    if (!tools.has(name)) return undefined;
    const close = search.indexOf(FUNCTION_CLOSE, nameEnd);
    const nextOpen = search.indexOf(FUNCTION_OPEN, nameEnd + 1);
    const closed = close !== -1 && (nextOpen === -1 || close < nextOpen);
    // A function cut off by the end of the text is not a call.
    if (!closed && ending === 'end-of-text') return undefined;
    const functionEnd = closed ? close : nextOpen === -1 ? body.length : nextOpen;
    events.push(toolCallEvent(name, parametersJson(body.slice(nameEnd + 1, functionEnd), name, tools, trimValue), format));
    position = closed ? close + FUNCTION_CLOSE.length : functionEnd;
  }
  events.push(...textEvents(body.slice(position)));
  return events.some((event) => event.type === 'tool-call') ? events : undefined;
}

/** Reads `<function=name>` with an offered name; answers the name. Functionary v3.1 shares this opening. */
export function readFunctionOpening(reader: OpeningReader, context: OpeningContext): string | undefined {
  if (!reader.accept(FUNCTION_OPEN)) return undefined;
  const name = reader.offeredName(context.tools);
  return name !== undefined && reader.accept('>') ? name : undefined;
}

export const wrappedXmlFunctionSyntax: OpeningSyntax = {
  triggers: '<',
  formats: ['xml_function'],
  prefixes: [TOOL_CALL_OPEN],
  open(reader, context) {
    if (!reader.accept(TOOL_CALL_OPEN)) return undefined;
    reader.skipWhitespace();
    if (readFunctionOpening(reader, context) === undefined) return undefined;
    const block = new DelimitedCallBlock(
      {
        opening: openingText(reader),
        bodyOffset: TOOL_CALL_OPEN.length,
        terminators: TOOL_CALL_TERMINATORS,
        parseBody: (body, ending) => readWrappedBody(body, ending, context.tools),
      },
      context.counter,
    );
    return { length: reader.position - reader.start, block };
  },
};

export const bareXmlFunctionSyntax: OpeningSyntax = {
  triggers: '<',
  formats: ['xml_function'],
  prefixes: [FUNCTION_OPEN],
  open(reader, context) {
    const name = readFunctionOpening(reader, context);
    if (name === undefined) return undefined;
    const nameEnd = reader.position;
    // Functionary v3.1 writes `<function=name>{JSON}</function>`: that body is not Qwen3-Coder's.
    reader.skipWhitespace();
    if (!reader.accept(PARAMETER_OPEN) && !reader.accept(FUNCTION_CLOSE)) return undefined;
    reader.position = nameEnd;
    const opening = openingText(reader);
    const block = new DelimitedCallBlock(
      {
        opening,
        bodyOffset: opening.length,
        terminators: [
          { token: FUNCTION_CLOSE, consumed: true },
          { token: FUNCTION_OPEN, consumed: false },
        ],
        parseBody: (body, ending) =>
          ending === 'end-of-text' ? undefined : [toolCallEvent(name, parametersJson(body, name, context.tools), 'xml_function')],
      },
      context.counter,
    );
    return { length: opening.length, block };
  },
};
