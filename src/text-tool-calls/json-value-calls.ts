/**
 * Turns the bracketed JSON values a balanced block collected into events: each value is a call
 * object, an array of them, or an OpenAI-style message; every call must name an offered tool.
 */
import { callEvents, textEvents } from './call-events.js';
import { readJsonCalls, type JsonCallRules } from './json-calls.js';
import type { OfferedToolSet } from './offered-tool-set.js';
import type { TextParserEvent, TextToolCallFormat } from './text-tool-call-types.js';

export function jsonValueCallEvents(
  values: readonly string[],
  tools: OfferedToolSet,
  format: TextToolCallFormat,
  rules: JsonCallRules = { requireArguments: false },
): TextParserEvent[] | undefined {
  const events: TextParserEvent[] = [];
  for (const value of values) {
    const calls = readJsonCalls(value, tools, rules);
    if (calls === undefined) return undefined;
    if (calls.content !== undefined) events.push(...textEvents(calls.content));
    events.push(...callEvents(calls.calls, format));
  }
  return events;
}
