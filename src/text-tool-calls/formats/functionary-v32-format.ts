/**
 * MeetKai Functionary v3.2: the answer is a series of messages, each `>>>` then its recipient and a
 * line break: `all` for text meant for the user, a tool's name for a call with its JSON arguments,
 *
 *   >>>all
 *   Let me check.
 *   >>>get_weather
 *   {"city": "Paris"}
 *
 * The template writes the first `>>>` itself, so the output often starts with the bare recipient
 * (`all⏎…` or `get_weather⏎{…}`). `auto` reads a `>>>` message only where an answer's messages
 * start (the start of the answer, or right after a call or reasoning): elsewhere `>>>` is Markdown's
 * third quote level or Python's prompt. The `functionary_v32` setting reads `>>>` anywhere and the
 * bare start too (a word and a line break at the start of an answer are ordinary prose otherwise).
 * The `>>>all` header is dropped; a message to anything else (`python`) stays text.
 */
import { BalancedCallBlock } from '../blocks/balanced-call-block.js';
import { DroppedMarkerBlock } from '../blocks/dropped-marker-block.js';
import type { OpeningReader } from '../scanning/opening-reader.js';
import { openingText, type Opening, type OpeningContext, type OpeningSyntax } from '../blocks/parser-block.js';
import { toolCallEvent, type TextParserEvent } from '../vocabulary/text-tool-call-types.js';
import { JsonValueScanner } from '../scanning/value-scanner.js';

const MARKER = '>>>';
const ALL = 'all';
const CARRIAGE_RETURN = '\r';
const LINE_FEED = '\n';

function acceptLineBreak(reader: OpeningReader): boolean {
  reader.accept(CARRIAGE_RETURN);
  return reader.accept(LINE_FEED);
}

/** The arguments object as a call; its text as written when it is not JSON. */
function callEventsFor(name: string, value: string): TextParserEvent[] | undefined {
  try {
    const argumentsValue: unknown = JSON.parse(value);
    if (typeof argumentsValue !== 'object' || argumentsValue === null || Array.isArray(argumentsValue)) return undefined;
    return [toolCallEvent(name, JSON.stringify(argumentsValue), 'functionary_v32')];
  } catch {
    return [toolCallEvent(name, value.trim(), 'functionary_v32')];
  }
}

/** After the recipient: `all` and its line break are dropped; an offered tool's line break and `{` open a call. */
function readRecipient(reader: OpeningReader, context: OpeningContext): Opening | undefined {
  const recipientStart = reader.position;
  const name = reader.offeredName(context.tools);
  if (name === undefined) {
    reader.position = recipientStart;
    if (!reader.accept(ALL) || !acceptLineBreak(reader)) return undefined;
    return { length: reader.position - reader.start, block: new DroppedMarkerBlock() };
  }
  if (!acceptLineBreak(reader)) return undefined;
  const valueOffset = reader.position - reader.start;
  if (!reader.accept('{')) return undefined;
  const block = new BalancedCallBlock(
    {
      opening: openingText(reader),
      valueOffset,
      createScanner: () => new JsonValueScanner(context.counter),
      chained: false,
      parseValues: (values) => callEventsFor(name, values[0]!),
    },
    context.counter,
  );
  return { length: reader.position - reader.start, block };
}

/**
 * `>>>` where an answer's messages start, in every setting. It lists no token on purpose: the
 * segment start is checked before anything is read, so a `>` ending a tag mid-text is never held
 * back waiting for two more.
 */
export const functionaryV32SegmentStartSyntax: OpeningSyntax = {
  triggers: '>',
  formats: ['functionary_v32'],
  onlyAtSegmentStart: true,
  open(reader, context) {
    return context.atSegmentStart && reader.accept(MARKER) ? readRecipient(reader, context) : undefined;
  },
};

/** `>>>` anywhere, in the named setting only. */
export const functionaryV32Syntax: OpeningSyntax = {
  triggers: '>',
  formats: ['functionary_v32'],
  namedOnly: true,
  prefixes: [MARKER],
  open(reader, context) {
    return reader.accept(MARKER) ? readRecipient(reader, context) : undefined;
  },
};

const WORD_CHARACTERS = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_';

/** The bare first recipient, at the start of the answer (or right after a call); named setting only. */
export const functionaryV32StartSyntax: OpeningSyntax = {
  triggers: WORD_CHARACTERS,
  formats: ['functionary_v32'],
  namedOnly: true,
  onlyAtSegmentStart: true,
  open(reader, context) {
    return context.atSegmentStart ? readRecipient(reader, context) : undefined;
  },
};
