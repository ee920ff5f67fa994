/**
 * Builds the events a recognised block emits: its calls in order, with any text the block carried
 * beside them. Whether every name was offered is decided before (json-calls.ts, the formats).
 */
import type { ParsedCall } from './json-calls.js';
import { toolCallEvent, type TextParserEvent, type TextToolCallFormat } from '../vocabulary/text-tool-call-types.js';

export function callEvents(calls: readonly ParsedCall[], format: TextToolCallFormat): TextParserEvent[] {
  return calls.map((call) => toolCallEvent(call.name, call.argumentsJson, format));
}

/** Text that is not only whitespace, as an event list (empty otherwise). */
export function textEvents(text: string): TextParserEvent[] {
  return text.trim() === '' ? [] : [{ type: 'text', text }];
}
