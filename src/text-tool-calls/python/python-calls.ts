/**
 * Reads pythonic call lists: `[get_weather(city="Paris"), get_time()]` (Llama 3.2/4) and the bare
 * calls of a Gemma `tool_code` block, one per line, optionally inside `print(…)` and with a
 * `default_api.` or `functions.` namespace. Each call's arguments become JSON by Python literal
 * rules; arguments that are not keyword literals are handed on as written, for the loop to report.
 */
import { isWhitespaceCode } from '../scanning/opening-reader.js';
import { parsePythonKeywordArguments } from './python-literals.js';
import { repairPythonStrings } from './python-string-repair.js';
import { NOT_A_VALUE, PythonValueScanner, STILL_OPEN } from '../scanning/value-scanner.js';

export interface PythonCall {
  name: string;
  argumentsJson: string;
}

/** Namespaces models put before a function's name; the name after them is the tool's. */
const NAMESPACES = ['default_api.', 'functions.'];

const CALLEE_PATTERN = /[A-Za-z_][\w.]*/y;

function skipSeparators(text: string, index: number, separators: string): number {
  let position = index;
  while (position < text.length && (isWhitespaceCode(text.charCodeAt(position)) || separators.includes(text[position]!))) position += 1;
  return position;
}

const CLOSING_BRACKETS: Record<string, string> = { '(': ')', '[': ']', '{': '}' };

/**
 * The index after the bracket matching the one at `open`, minding Python strings; -1 when it never
 * closes, or closes with a bracket of another kind (`[foo(x=1])]` is no call list).
 */
function matchingBracketEnd(text: string, open: number): number {
  const end = new PythonValueScanner().scan(text, open, text.length);
  if (end === STILL_OPEN || end === NOT_A_VALUE) return -1;
  return text[end - 1] === CLOSING_BRACKETS[text[open]!] ? end : -1;
}

function toolName(callee: string): string {
  const namespace = NAMESPACES.find((prefix) => callee.startsWith(prefix));
  return namespace === undefined ? callee : callee.slice(namespace.length);
}

function argumentsJson(argumentsText: string): string {
  const parsed = parsePythonKeywordArguments(argumentsText) ?? parsePythonKeywordArguments(repairPythonStrings(argumentsText));
  if (parsed === undefined) return argumentsText.trim();
  try {
    return JSON.stringify(parsed);
  } catch {
    return argumentsText.trim();
  }
}

interface CallMatch {
  call: PythonCall;
  end: number;
}

/** One call at `index` (`name(…)` or `print(name(…))`), or undefined when none starts there. */
function readCall(text: string, index: number): CallMatch | undefined {
  CALLEE_PATTERN.lastIndex = index;
  const callee = CALLEE_PATTERN.exec(text)?.[0];
  if (callee === undefined) return undefined;
  let open = index + callee.length;
  while (open < text.length && isWhitespaceCode(text.charCodeAt(open))) open += 1;
  if (text[open] !== '(') return undefined;
  const end = matchingBracketEnd(text, open);
  if (end < 0) return undefined;
  const inner = text.slice(open + 1, end - 1);
  if (callee === 'print') {
    const start = skipSeparators(inner, 0, '');
    const wrapped = readCall(inner, start);
    if (wrapped === undefined || skipSeparators(inner, wrapped.end, '') !== inner.length) return undefined;
    return { call: wrapped.call, end };
  }
  return { call: { name: toolName(callee), argumentsJson: argumentsJson(inner) }, end };
}

/**
 * The calls in `text`: a bracketed list when `bracketed`, otherwise calls separated by newlines,
 * commas or semicolons. Undefined when anything else is there.
 */
export function readPythonCalls(text: string, bracketed: boolean): PythonCall[] | undefined {
  let index = skipSeparators(text, 0, '');
  let end = text.length;
  if (bracketed) {
    if (text[index] !== '[') return undefined;
    end = matchingBracketEnd(text, index) - 1;
    if (end < 0 || skipSeparators(text, end + 1, '') !== text.length) return undefined;
    index += 1;
  }
  const inside = text.slice(0, end);
  const calls: PythonCall[] = [];
  for (;;) {
    index = skipSeparators(inside, index, calls.length === 0 ? '' : ',;');
    if (index >= end) return calls.length > 0 ? calls : undefined;
    const match = readCall(inside, index);
    if (match === undefined) return undefined;
    calls.push(match.call);
    index = match.end;
  }
}
