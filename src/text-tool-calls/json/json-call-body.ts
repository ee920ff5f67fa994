/**
 * Reads the body of a tag-delimited JSON call (`<tool_call>…</tool_call>`, `<tool_calls>…</tool_calls>`,
 * a ```json fence): the JSON value at its start becomes the calls, and text the model wrote after
 * the value inside the tags is kept as text. A body closed by its tag whose JSON is broken is read
 * loosely (the tags delimit it); one cut off by the end of the text is not a call.
 */
import { callEvents, textEvents } from './call-events.js';
import type { BlockEnding } from '../blocks/delimited-call-block.js';
import { readJsonCalls, type JsonCallRules, type ParsedCall } from './json-calls.js';
import type { OfferedToolSet } from '../vocabulary/offered-tool-set.js';
import type { TextParserEvent, TextToolCallFormat } from '../vocabulary/text-tool-call-types.js';
import { JsonValueScanner, NOT_A_VALUE, STILL_OPEN } from '../scanning/value-scanner.js';

/** What stays the same for every body of one format: the tools it may call, and how strictly it reads. */
export interface JsonCallBodyReading {
  tools: OfferedToolSet;
  format: TextToolCallFormat;
  /** Absent: a call need not carry `arguments` (the tags already say it is a call). */
  rules?: JsonCallRules;
  /** Tags that may hold several call objects one after the other (a repair; see followingCalls). */
  severalObjects?: boolean;
}

const TAGGED_CALL_RULES: JsonCallRules = { requireArguments: false };

function isBlankOrComma(code: number): boolean {
  return code === 0x2c || code === 0x20 || code === 0x0a || code === 0x0d || code === 0x09;
}

/**
 * Repair: further call objects after the first inside the same tags, separated by commas or line
 * breaks (`<tool_call>{…}, {…}</tool_call>`, as SGLang and MiniMax read them). Answers the calls
 * and where they end, or undefined when what follows is not one more complete call object.
 */
function followingCalls(body: string, from: number, reading: JsonCallBodyReading): { calls: ParsedCall[]; end: number } {
  const { tools, rules = TAGGED_CALL_RULES } = reading;
  const calls: ParsedCall[] = [];
  let end = from;
  for (;;) {
    let start = end;
    while (start < body.length && isBlankOrComma(body.charCodeAt(start))) start += 1;
    if (start === end || body[start] !== '{') return { calls, end };
    const valueEnd = new JsonValueScanner().scan(body, start, body.length);
    if (valueEnd === NOT_A_VALUE || valueEnd === STILL_OPEN) return { calls, end };
    const next = readJsonCalls(body.slice(start, valueEnd), tools, rules);
    if (next === undefined) return { calls, end };
    calls.push(...next.calls);
    end = valueEnd;
  }
}

/** Repair: the extra `}` or `]` a model added after a complete call, with blank space around it. */
function isStrayClosing(rest: string): boolean {
  const trimmed = rest.trim();
  return trimmed !== '' && trimmed.length <= 4 && trimmed.replaceAll('}', '').replaceAll(']', '') === '';
}

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
  const more = reading.severalObjects === true ? followingCalls(body, end, reading) : { calls: [], end };
  const rest = body.slice(more.end);
  const after = isStrayClosing(rest) ? [] : textEvents(rest);
  return [...content, ...callEvents([...calls.calls, ...more.calls], format), ...after];
}
