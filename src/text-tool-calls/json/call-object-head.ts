/**
 * Recognises the start of a JSON call object while it streams: `{` then, within a few members that
 * fit in the opening window (`"type": "function"`, `"id": "call_1"`, even a small `"arguments"`), a
 * `"name"` (or `"function"`) whose value is an offered tool's name. Deciding on the name keeps
 * hold-back short: a JSON object in prose that names no offered tool is released after a few
 * characters, not held until it closes. An OpenAI-style wrapper (`{"tool_calls": [{…`) is
 * recognised when asked.
 */
import type { OfferedToolSet } from '../vocabulary/offered-tool-set.js';
import type { OpeningReader } from '../scanning/opening-reader.js';

/** Members a call object may carry before the one naming the tool. */
const PREAMBLE_KEYS = new Set(['type', 'id', 'call_id', 'index', 'arguments', 'parameters']);
/** Members an OpenAI-style message may carry before its `tool_calls`. */
const WRAPPER_PREAMBLE_KEYS = new Set(['role', 'content', 'type', 'id']);
const KEY_CHARACTERS_MAXIMUM = 32;
const MEMBERS_BEFORE_NAME_MAXIMUM = 4;

export interface CallObjectHead {
  name: string;
  /** The object was an OpenAI-style `{"tool_calls": [...]}` wrapper. */
  wrapped: boolean;
}

function readQuotedOfferedName(reader: OpeningReader, tools: OfferedToolSet): string | undefined {
  if (!reader.accept('"')) return undefined;
  const name = reader.offeredName(tools);
  return name !== undefined && reader.accept('"') ? name : undefined;
}

/** Reads a call object's head at the reader's position; `allowWrapper` also accepts `{"tool_calls": [{…`. */
export function readCallObjectHead(reader: OpeningReader, tools: OfferedToolSet, allowWrapper: boolean): CallObjectHead | undefined {
  if (!reader.accept('{')) return undefined;
  for (let member = 0; member < MEMBERS_BEFORE_NAME_MAXIMUM; member += 1) {
    reader.skipWhitespace();
    const key = reader.shortJsonString(KEY_CHARACTERS_MAXIMUM);
    if (key === undefined) return undefined;
    reader.skipWhitespace();
    if (!reader.accept(':')) return undefined;
    reader.skipWhitespace();
    const startsString = reader.peek() === 0x22;
    if (key === 'name' || (key === 'function' && startsString)) {
      const name = readQuotedOfferedName(reader, tools);
      return name === undefined ? undefined : { name, wrapped: false };
    }
    if (key === 'function') return readCallObjectHead(reader, tools, false);
    if (allowWrapper && key === 'tool_calls') {
      if (!reader.accept('[')) return undefined;
      reader.skipWhitespace();
      const inner = readCallObjectHead(reader, tools, false);
      return inner === undefined ? undefined : { name: inner.name, wrapped: true };
    }
    const preamble = allowWrapper ? WRAPPER_PREAMBLE_KEYS : PREAMBLE_KEYS;
    if (!preamble.has(key) || !reader.skipJsonValue()) return undefined;
    reader.skipWhitespace();
    if (!reader.accept(',')) return undefined;
  }
  return undefined;
}

/** A call object, or an array whose first element is one: `[{"name": …`. */
export function readCallObjectOrArrayHead(reader: OpeningReader, tools: OfferedToolSet): CallObjectHead | undefined {
  if (reader.accept('[')) {
    reader.skipWhitespace();
  }
  return readCallObjectHead(reader, tools, false);
}
