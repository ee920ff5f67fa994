/**
 * Builds the events a recognised block emits: its calls in order, with any text the block carried
 * beside them, and the all-or-nothing rule: a block naming any tool that was not offered stays text.
 */
import type { ParsedCall } from './json-calls.js';
import type { OfferedToolSet } from './offered-tool-set.js';
import { toolCallEvent, type TextParserEvent, type TextToolCallFormat } from './text-tool-call-types.js';

export function callEvents(calls: readonly ParsedCall[], format: TextToolCallFormat): TextParserEvent[] {
  return calls.map((call) => toolCallEvent(call.name, call.argumentsJson, format));
}

/** The calls' events when there is at least one and every name is offered; undefined otherwise. */
export function offeredCallEvents(
  calls: readonly ParsedCall[] | undefined,
  tools: OfferedToolSet,
  format: TextToolCallFormat,
): TextParserEvent[] | undefined {
  if (calls === undefined || calls.length === 0 || !calls.every((call) => tools.has(call.name))) return undefined;
  return callEvents(calls, format);
}

/** Text that is not only whitespace, as an event list (empty otherwise). */
export function textEvents(text: string): TextParserEvent[] {
  return text.trim() === '' ? [] : [{ type: 'text', text }];
}
