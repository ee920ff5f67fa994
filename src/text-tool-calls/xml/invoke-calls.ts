/**
 * Reads calls written as XML invocations, the shape MiniMax M2 and StepFun Step3 share (Step3 puts
 * its `steptml:` namespace on the tags):
 *
 *   <invoke name="get_weather"><parameter name="city">Paris</parameter></invoke>
 *
 * Values are the text between the tags, kept exactly for strings (an edit tool's leading spaces are
 * data; MiniMax's one line break after the opening tag and before the close is markup, Step3 writes
 * values inline so its line breaks are data) and typed by the tool's JSON Schema otherwise. A value runs to the last parameter close
 * before the next parameter or the invocation's end, so a value that itself contains the closing
 * tag keeps it.
 */
import { firstFound, ForwardSearch } from '../scanning/forward-search.js';
import type { OfferedToolSet } from '../vocabulary/offered-tool-set.js';
import type { OpeningContext } from '../blocks/parser-block.js';
import type { OpeningReader } from '../scanning/opening-reader.js';
import { trimTagLineBreaks, typedValue } from './schema-typed-values.js';
import { toolCallEvent, type TextParserEvent, type TextToolCallFormat } from '../vocabulary/text-tool-call-types.js';

export interface InvokeTags {
  invokeOpen: string;
  invokeClose: string;
  parameterOpen: string;
  parameterClose: string;
  /** Whether the one line break after a parameter's opening tag and before its close is markup. */
  lineBreaksAreMarkup: boolean;
}

export function invokeTags(namespace: string, lineBreaksAreMarkup: boolean): InvokeTags {
  return {
    invokeOpen: `<${namespace}invoke name=`,
    invokeClose: `</${namespace}invoke>`,
    parameterOpen: `<${namespace}parameter name=`,
    parameterClose: `</${namespace}parameter>`,
    lineBreaksAreMarkup,
  };
}

/** `"name">` (or `name>`, or single quotes) after `name=`: the attribute's value and where the tag ends. */
function attribute(body: string, from: number, search: ForwardSearch): { value: string; end: number } | undefined {
  const close = search.indexOf('>', from);
  if (close === -1) return undefined;
  let value = body.slice(from, close).trim();
  const quote = value[0];
  if ((quote === '"' || quote === "'") && value.endsWith(quote) && value.length >= 2) value = value.slice(1, -1);
  return { value, end: close + 1 };
}

function parametersJson(body: string, toolName: string, tools: OfferedToolSet, tags: InvokeTags): string {
  const search = new ForwardSearch(body);
  const parameters: Record<string, unknown> = {};
  let position = 0;
  for (;;) {
    const open = search.indexOf(tags.parameterOpen, position);
    if (open === -1) break;
    const name = attribute(body, open + tags.parameterOpen.length, search);
    if (name === undefined) break;
    const next = search.indexOf(tags.parameterOpen, name.end);
    const boundary = next === -1 ? body.length : next;
    // Searched within this parameter's stretch only, so a body of unclosed parameters stays linear.
    const stretch = body.slice(name.end, boundary);
    const close = stretch.lastIndexOf(tags.parameterClose);
    // A value without its close ends where the next parameter starts (models do forget).
    const value = close === -1 ? stretch : stretch.slice(0, close);
    const text = tags.lineBreaksAreMarkup ? trimTagLineBreaks(value) : value;
    parameters[name.value] = typedValue(text, tools.parameterSchema(toolName, name.value));
    position = boundary;
  }
  return JSON.stringify(parameters);
}

/**
 * Every invocation in `body`, in order; undefined when one names a tool that was not offered, when
 * none is there, or when the last one is cut off and `complete` is false.
 */
export function readInvokeCalls(
  body: string,
  tools: OfferedToolSet,
  tags: InvokeTags,
  options: { format: TextToolCallFormat; acceptUnclosed: boolean },
): TextParserEvent[] | undefined {
  const search = new ForwardSearch(body);
  const events: TextParserEvent[] = [];
  let position = 0;
  for (;;) {
    const open = search.indexOf(tags.invokeOpen, position);
    if (open === -1) break;
    const name = attribute(body, open + tags.invokeOpen.length, search);
    if (name === undefined || !tools.has(name.value)) return undefined;
    const close = search.indexOf(tags.invokeClose, name.end);
    const nextOpen = search.indexOf(tags.invokeOpen, name.end);
    const closed = close !== -1 && (nextOpen === -1 || close < nextOpen);
    if (!closed && !options.acceptUnclosed) return undefined;
    const invokeEnd = closed ? close : firstFound(nextOpen, body.length);
    const inner = body.slice(name.end, invokeEnd);
    events.push(toolCallEvent(name.value, parametersJson(inner, name.value, tools, tags), options.format));
    position = closed ? close + tags.invokeClose.length : invokeEnd;
  }
  return events.length > 0 ? events : undefined;
}

/** Reads `<…invoke name="offered">` at the reader; answers the name. */
export function readInvokeOpening(reader: OpeningReader, context: OpeningContext, tags: InvokeTags): string | undefined {
  if (!reader.accept(tags.invokeOpen)) return undefined;
  const quoted = reader.accept('"');
  const name = reader.offeredName(context.tools);
  if (name === undefined || (quoted && !reader.accept('"'))) return undefined;
  return reader.accept('>') ? name : undefined;
}
