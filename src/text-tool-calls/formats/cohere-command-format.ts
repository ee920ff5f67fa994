/**
 * Cohere Command R7B / A (Command 3 and 4 templates): the answer is written in blocks of special
 * tokens,
 *
 *   <|START_THINKING|>I will look it up.<|END_THINKING|>
 *   <|START_ACTION|>[{"tool_call_id": "0", "tool_name": "get_weather", "parameters": {"city": "Paris"}}]<|END_ACTION|>
 *
 * or, for an answer, `<|START_RESPONSE|>The weather…<|END_RESPONSE|>` (R7B: `<|START_TEXT|>…<|END_TEXT|>`).
 * Thinking is reasoning; the answer block is text without its tokens and without the
 * `<co>…</co: 0:[1]>` citation marks the model puts around cited spans; the action block holds the
 * calls as a JSON list of objects naming the tool in `tool_name`.
 *
 * The older Command R writes the same list in a fence after an `Action:` line (`Action: ```json` ⏎
 * `[…]` ⏎ ` ``` `). That opens with an ordinary word, so it is read only in the `cohere_command`
 * setting, never in `auto`, and only with the fence right after the word and an offered tool's
 * name in `tool_name`.
 */
import { callEvents, textEvents } from '../json/call-events.js';
import { DelimitedCallBlock, type BlockEnding } from '../blocks/delimited-call-block.js';
import type { ParsedCall } from '../json/json-calls.js';
import type { OfferedToolSet } from '../vocabulary/offered-tool-set.js';
import type { OpeningReader } from '../scanning/opening-reader.js';
import { openingText, type OpeningContext, type OpeningSyntax } from '../blocks/parser-block.js';
import type { TextParserEvent } from '../vocabulary/text-tool-call-types.js';
import { JsonValueScanner, NOT_A_VALUE, STILL_OPEN } from '../scanning/value-scanner.js';
import { trailingTokenSyntax } from '../blocks/trailing-token-syntax.js';
import { CitationStrippedBlock } from './cohere-citations.js';
import { readFenceLineEnd } from './gemma-tool-code-format.js';

const THINKING_START = '<|START_THINKING|>';
const THINKING_END = '<|END_THINKING|>';
/** Command A writes its answer between RESPONSE tokens, Command R7B between TEXT tokens. */
const RESPONSE_BLOCKS: ReadonlyArray<readonly [string, string]> = [
  ['<|START_RESPONSE|>', '<|END_RESPONSE|>'],
  ['<|START_TEXT|>', '<|END_TEXT|>'],
];
/** Ends the turn; it may close an answer block whose own end token never came, or trail after it. */
const END_OF_TURN = '<|END_OF_TURN_TOKEN|>';
const ACTION_START = '<|START_ACTION|>';
const ACTION_END = '<|END_ACTION|>';
const ACTION_LINE = 'Action:';
const JSON_FENCE = '```json';
const FENCE = '```';
const KEY_CHARACTERS_MAXIMUM = 32;
const MEMBERS_BEFORE_NAME_MAXIMUM = 3;

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** One action item: `{"tool_call_id": "0", "tool_name": "…", "parameters": {…}}`. */
function callFromItem(item: unknown, tools: OfferedToolSet): ParsedCall | undefined {
  if (!isPlainObject(item)) return undefined;
  const name = item['tool_name'];
  if (typeof name !== 'string' || !tools.has(name)) return undefined;
  const parameters = item['parameters'];
  if (parameters !== undefined && parameters !== null && !isPlainObject(parameters)) return undefined;
  return { name, argumentsJson: JSON.stringify(parameters ?? {}) };
}

/**
 * The action list's items one by one, as Ollama reads them: an item that is not JSON (`"time": 15:30`)
 * is skipped, and a missing comma between items does not matter. Every item read must name an
 * offered tool, or the block stays text.
 */
function readActionItems(list: string, tools: OfferedToolSet): ParsedCall[] | undefined {
  const calls: ParsedCall[] = [];
  let position = list.indexOf('{');
  while (position !== -1) {
    const end = new JsonValueScanner().scan(list, position, list.length);
    if (end === STILL_OPEN || end === NOT_A_VALUE) break;
    let item: unknown;
    try {
      item = JSON.parse(list.slice(position, end));
    } catch {
      item = undefined;
    }
    if (item !== undefined) {
      const call = callFromItem(item, tools);
      if (call === undefined) return undefined;
      calls.push(call);
    }
    position = list.indexOf('{', end);
  }
  return calls.length === 0 ? undefined : calls;
}

function readActions(body: string, ending: BlockEnding, tools: OfferedToolSet): TextParserEvent[] | undefined {
  const end = new JsonValueScanner().scan(body, 0, body.length);
  if (end === NOT_A_VALUE || end === STILL_OPEN) return undefined;
  // The end token is where the model stops; a complete list it never wrote is still its calls.
  if (ending === 'interrupted') return undefined;
  const calls = readActionItems(body.slice(0, end), tools);
  return calls === undefined ? undefined : [...callEvents(calls, 'cohere_command'), ...textEvents(body.slice(end))];
}

/** `[{` (or `{`) then, within the first few members, `"tool_name": "<offered>"`. */
function readActionHead(reader: OpeningReader, context: OpeningContext): boolean {
  // Some versions write a single object without the list.
  if (reader.accept('[')) reader.skipWhitespace();
  if (!reader.accept('{')) return false;
  for (let member = 0; member < MEMBERS_BEFORE_NAME_MAXIMUM; member += 1) {
    reader.skipWhitespace();
    const key = reader.shortJsonString(KEY_CHARACTERS_MAXIMUM);
    if (key === undefined) return false;
    reader.skipWhitespace();
    if (!reader.accept(':')) return false;
    reader.skipWhitespace();
    if (key === 'tool_name') return reader.accept('"') && reader.offeredName(context.tools) !== undefined && reader.accept('"');
    if (!reader.skipJsonValue()) return false;
    reader.skipWhitespace();
    if (!reader.accept(',')) return false;
  }
  return false;
}

export const cohereActionSyntax: OpeningSyntax = {
  triggers: '<',
  formats: ['cohere_command'],
  prefixes: [ACTION_START],
  open(reader, context) {
    if (!reader.accept(ACTION_START)) return undefined;
    reader.skipWhitespace();
    const bodyOffset = reader.position - reader.start;
    if (!readActionHead(reader, context)) return undefined;
    const block = new DelimitedCallBlock(
      {
        opening: openingText(reader),
        bodyOffset,
        terminators: [
          { token: ACTION_END, consumed: true },
          { token: ACTION_START, consumed: false },
        ],
        parseBody: (body, ending) => readActions(body, ending, context.tools),
      },
      context.counter,
    );
    return { length: reader.position - reader.start, block };
  },
};

/** Command R: `Action: ```json` ⏎ the action list ⏎ ` ``` `. */
export const cohereFencedActionSyntax: OpeningSyntax = {
  triggers: 'A',
  formats: ['cohere_command'],
  prefixes: [ACTION_LINE],
  // An ordinary word opens it, and a stop at every capital A would halve auto mode's speed on prose.
  namedOnly: true,
  open(reader, context) {
    if (!reader.accept(ACTION_LINE)) return undefined;
    while (reader.peek() === 0x20) reader.advance();
    if (!reader.accept(JSON_FENCE) || !readFenceLineEnd(reader)) return undefined;
    const bodyOffset = reader.position - reader.start;
    if (!readActionHead(reader, context)) return undefined;
    const block = new DelimitedCallBlock(
      {
        opening: openingText(reader),
        bodyOffset,
        terminators: [{ token: FENCE, consumed: true }],
        parseBody: (body, ending) => readActions(body, ending, context.tools),
      },
      context.counter,
    );
    return { length: reader.position - reader.start, block };
  },
};

/** The end-of-turn token, dropped after a block or at the very end of the text. */
export const cohereEndOfTurnSyntax: OpeningSyntax = trailingTokenSyntax(END_OF_TURN, ['cohere_command'], true);

/** Thinking is reasoning wherever a reasoning block may start, in every setting (as `<think>` is). */
export const cohereThinkingSyntax: OpeningSyntax = {
  triggers: '<',
  formats: 'reasoning',
  prefixes: [THINKING_START],
  open(reader, context) {
    if (!context.atSegmentStart || !reader.accept(THINKING_START)) return undefined;
    return { length: THINKING_START.length, block: new CitationStrippedBlock('reasoning', [THINKING_END], context.counter) };
  },
};

/** The response block streams as text; only its tokens and citation marks are dropped. */
export const cohereResponseSyntax: OpeningSyntax = {
  triggers: '<',
  formats: ['cohere_command'],
  prefixes: RESPONSE_BLOCKS.map(([start]) => start),
  open(reader, context) {
    // Where a reasoning block may start, so prose that names the token mid-sentence stays as written.
    if (!context.atSegmentStart) return undefined;
    const block = RESPONSE_BLOCKS.find(([start]) => reader.accept(start));
    if (block === undefined) return undefined;
    return { length: block[0].length, block: new CitationStrippedBlock('text', [block[1], END_OF_TURN], context.counter) };
  },
};
