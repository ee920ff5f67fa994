/**
 * Reads the body of a tag-delimited JSON call (`<tool_call>…</tool_call>`, `<tool_calls>…</tool_calls>`,
 * a ```json fence): the JSON value at its start becomes the calls, and text the model wrote after
 * the value inside the tags is kept as text. A body closed by its tag whose JSON is broken is read
 * loosely (the tags delimit it); one cut off by the end of the text is not a call.
 */
import { callEvents, textEvents } from './call-events.js';
import type { BlockEnding } from './delimited-call-block.js';
import { readJsonCalls, type JsonCallRules } from './json-calls.js';
import type { OfferedToolSet } from './offered-tool-set.js';
import type { TextParserEvent, TextToolCallFormat } from './text-tool-call-types.js';
import { JsonValueScanner, NOT_A_VALUE, STILL_OPEN } from './value-scanner.js';

/** What stays the same for every body of one format: the tools it may call, and how strictly it reads. */
export interface JsonCallBodyReading {
  tools: OfferedToolSet;
  format: TextToolCallFormat;
  /** Absent: a call need not carry `arguments` (the tags already say it is a call). */
  rules?: JsonCallRules;
}

const TAGGED_CALL_RULES: JsonCallRules = { requireArguments: false };

export function readJsonCallBody(body: string, ending: BlockEnding, reading: JsonCallBodyReading): TextParserEvent[] | undefined {
  const { tools, format, rules = TAGGED_CALL_RULES } = reading;
  const end = new JsonValueScanner().scan(body, 0, body.length);
  if (end === NOT_A_VALUE) return undefined;
  if (end === STILL_OPEN) {
    if (ending !== 'closed') return undefined;
    const calls = readJsonCalls(body, tools, rules);
    return calls === undefined ? undefined : callEvents(calls.calls, format);
  }
  const calls = readJsonCalls(body.slice(0, end), tools, rules);
  if (calls === undefined) return undefined;
  const content = calls.content === undefined ? [] : textEvents(calls.content);
  return [...content, ...callEvents(calls.calls, format), ...textEvents(body.slice(end))];
}
