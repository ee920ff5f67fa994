/**
 * Turns JSON a model wrote into calls: one call object (`{"name": …, "arguments": …}`), an array of
 * them, or an OpenAI-style message (`{"tool_calls": [...]}`, items named directly or under
 * `function`). Valid JSON is read strictly; JSON that does not parse is read loosely, so the call
 * keeps its name and its arguments stay the model's own text.
 */
import { looseArrayElements, looseObjectMembers, type LooseMember } from './loose-json.js';
import type { OfferedToolSet } from '../vocabulary/offered-tool-set.js';

export interface ParsedCall {
  name: string;
  argumentsJson: string;
}

export interface JsonCalls {
  calls: ParsedCall[];
  /** Text an OpenAI-style message carried beside its calls. */
  content?: string;
}

const ARGUMENT_KEYS = ['arguments', 'parameters'] as const;

/** JSON of an object; JSON.stringify recurses, so a value nested too deep answers undefined. */
function serialise(value: unknown): string | undefined {
  try {
    return JSON.stringify(value);
  } catch {
    return undefined;
  }
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The arguments as JSON text: an object re-serialised; a string holding JSON (OpenAI's shape) read
 * first; absent or null as `{}` (the model gave none); anything else as written.
 */
function argumentsJsonFromValue(value: unknown, raw?: string): string {
  if (value === undefined || value === null) return '{}';
  if (typeof value === 'string') {
    try {
      const inner: unknown = JSON.parse(value);
      if (isPlainObject(inner)) return serialise(inner) ?? value;
    } catch {
      // A string that is not JSON is handed on as it is: the loop reports it.
    }
    return value;
  }
  // Reached by a value nested too deep to serialise: its default text is not JSON, so the loop reports it unreadable.
  // eslint-disable-next-line @typescript-eslint/no-base-to-string -- that default text is the intended answer here
  return serialise(value) ?? raw ?? String(value);
}

/** The arguments from their raw text: re-serialised when they parse, the text itself when they do not. */
export function argumentsJsonFromText(raw: string): string {
  const trimmed = raw.trim();
  try {
    return argumentsJsonFromValue(JSON.parse(trimmed) as unknown, trimmed);
  } catch {
    return trimmed;
  }
}

function parseJson(text: string): { value: unknown } | undefined {
  try {
    return { value: JSON.parse(text) as unknown };
  } catch {
    return undefined;
  }
}

/**
 * A tool's definition (`{"name", "description", "parameters"}`) names a tool too; a model listing its
 * tools is not calling them.
 */
function isDefinition(keys: readonly string[]): boolean {
  return keys.includes('description');
}

export interface JsonCallRules {
  /**
   * JSON with no tag around it (a bare object or list, a markdown fence) must carry `arguments` or
   * `parameters` to be a call: `{"name": "get_weather"}` alone is as likely data as a call.
   */
  requireArguments: boolean;
}

function callFromObject(object: Record<string, unknown>, tools: OfferedToolSet, rules: JsonCallRules): ParsedCall | undefined {
  if (isDefinition(Object.keys(object))) return undefined;
  const named = object['name'] ?? object['function'];
  if (isPlainObject(named)) return callFromObject(named, tools, rules);
  if (typeof named !== 'string' || !tools.has(named)) return undefined;
  const argumentKey = ARGUMENT_KEYS.find((key) => Object.hasOwn(object, key));
  if (argumentKey === undefined && rules.requireArguments) return undefined;
  return { name: named, argumentsJson: argumentsJsonFromValue(argumentKey === undefined ? undefined : object[argumentKey]) };
}

function callsFromValue(value: unknown, tools: OfferedToolSet, rules: JsonCallRules): JsonCalls | undefined {
  const items = Array.isArray(value) ? value : isPlainObject(value) && Array.isArray(value['tool_calls']) ? value['tool_calls'] : [value];
  const calls: ParsedCall[] = [];
  for (const item of items) {
    const call = isPlainObject(item) ? callFromObject(item, tools, rules) : undefined;
    if (call === undefined) return undefined;
    calls.push(call);
  }
  if (calls.length === 0) return undefined;
  const content = isPlainObject(value) && typeof value['content'] === 'string' && value['content'] !== '' ? value['content'] : undefined;
  return content === undefined ? { calls } : { calls, content };
}

function member(members: readonly LooseMember[], key: string): string | undefined {
  return members.find((candidate) => candidate.key === key)?.value;
}

function looseCallFromObject(text: string, tools: OfferedToolSet, rules: JsonCallRules): ParsedCall | undefined {
  const members = looseObjectMembers(text);
  if (members === undefined || isDefinition(members.map((candidate) => candidate.key))) return undefined;
  const named = member(members, 'name') ?? member(members, 'function');
  if (named === undefined) return undefined;
  if (named.startsWith('{')) return looseCallFromObject(named, tools, rules);
  const name = parseJson(named)?.value;
  if (typeof name !== 'string' || !tools.has(name)) return undefined;
  const argumentsText = ARGUMENT_KEYS.map((key) => member(members, key)).find((value) => value !== undefined);
  if (argumentsText === undefined && rules.requireArguments) return undefined;
  return { name, argumentsJson: argumentsText === undefined ? '{}' : argumentsJsonFromText(argumentsText) };
}

function looseCalls(text: string, tools: OfferedToolSet, rules: JsonCallRules): JsonCalls | undefined {
  const trimmed = text.trim();
  let items: string[] | undefined;
  if (trimmed.startsWith('[')) items = looseArrayElements(trimmed);
  else {
    const wrapped = member(looseObjectMembers(trimmed) ?? [], 'tool_calls');
    items = wrapped === undefined ? [trimmed] : looseArrayElements(wrapped);
  }
  if (items === undefined || items.length === 0) return undefined;
  const calls: ParsedCall[] = [];
  for (const item of items) {
    const call = looseCallFromObject(item, tools, rules);
    if (call === undefined) return undefined;
    calls.push(call);
  }
  return { calls };
}

/**
 * The calls `text` describes when every one of them names an offered tool; undefined otherwise, so
 * a block naming anything else stays text as a whole.
 */
export function readJsonCalls(
  text: string,
  tools: OfferedToolSet,
  rules: JsonCallRules = { requireArguments: false },
): JsonCalls | undefined {
  const parsed = parseJson(text);
  return parsed === undefined ? looseCalls(text, tools, rules) : callsFromValue(parsed.value, tools, rules);
}
