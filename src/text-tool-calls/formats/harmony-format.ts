/**
 * OpenAI Harmony (gpt-oss). Output is a series of messages, each a header then content:
 *
 *   <|channel|>analysis<|message|>Need the weather.<|end|>
 *   <|start|>assistant<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{"city":"Paris"}<|call|>
 *   <|start|>assistant<|channel|>final<|message|>It is sunny.<|return|>
 *
 * The recipient (`to=functions.name`) may sit in the role part or the channel part of the header,
 * and the content type may follow `<|constrain|>` or stand alone. A message to an offered function
 * is a call; the analysis channel is reasoning; final and commentary without recipient are the
 * answer's text. When the template wrote `<|start|>assistant` into the prompt, the answer opens with
 * the rest of that header (` to=functions.get_weather<|channel|>…`). A message to anything else (a
 * built-in tool, an unknown function) stays text, exactly as written.
 */
import { DelimitedCallBlock } from '../blocks/delimited-call-block.js';
import { argumentsJsonFromText } from '../json/json-calls.js';
import type { OpeningReader } from '../scanning/opening-reader.js';
import { openingText, type Opening, type OpeningContext, type OpeningSyntax } from '../blocks/parser-block.js';
import { StreamedBlock } from '../blocks/streamed-block.js';
import type { Terminator } from '../scanning/terminator-search.js';
import { toolCallEvent } from '../vocabulary/text-tool-call-types.js';

const START = '<|start|>';
const CHANNEL = '<|channel|>';
const MESSAGE = '<|message|>';
const CONSTRAIN = '<|constrain|>';
const RECIPIENT = 'to=';
const FUNCTIONS = 'functions.';

/** A message ends at its end token, or where the next message's header starts without one. */
const MESSAGE_TERMINATORS: readonly Terminator[] = [
  { token: '<|end|>', consumed: true },
  { token: '<|return|>', consumed: true },
  { token: '<|call|>', consumed: true },
  { token: START, consumed: false },
  { token: CHANNEL, consumed: false },
];

interface Header {
  channel: string | undefined;
  recipient: string | undefined;
}

/** Reads ` to=…`, ` <|constrain|>json` or ` json` attributes; answers the recipient if one was given. */
function readAttributes(reader: OpeningReader, recipient: string | undefined): string | undefined {
  let found = recipient;
  for (;;) {
    reader.skipWhitespace();
    if (reader.accept(RECIPIENT)) found = reader.word();
    else if (reader.accept(CONSTRAIN)) reader.word();
    else if (reader.word() === '') return found;
  }
}

/** `[<|start|>role[ to=…]]<|channel|>name[ to=…][ <|constrain|>type]<|message|>`; undefined when not one. */
function readHeader(reader: OpeningReader): Header | undefined {
  let recipient: string | undefined;
  const started = reader.accept(START);
  if (started) {
    if (reader.word() === '') return undefined;
    recipient = readAttributes(reader, undefined);
  }
  let channel: string | undefined;
  if (reader.accept(CHANNEL)) {
    channel = reader.word();
    if (channel === '') return undefined;
    recipient = readAttributes(reader, recipient);
  } else if (!started) return undefined;
  return reader.accept(MESSAGE) ? { channel, recipient } : undefined;
}

/** Opens the block of the message whose header the reader just read. */
function openMessage(reader: OpeningReader, context: OpeningContext, header: Header): Opening {
  const length = reader.position - reader.start;
  if (header.recipient === undefined) {
    const kind = header.channel === 'analysis' ? 'reasoning' : 'text';
    return { length, block: new StreamedBlock(kind, MESSAGE_TERMINATORS, context.counter) };
  }
  const name = header.recipient.startsWith(FUNCTIONS) ? header.recipient.slice(FUNCTIONS.length) : undefined;
  const offered = name !== undefined && context.tools.has(name);
  const opening = openingText(reader);
  // A message to anything else is still a whole message: held to its end and released as written,
  // so its header is never read again as the header of a message to nobody.
  const block = new DelimitedCallBlock(
    {
      opening,
      bodyOffset: opening.length,
      terminators: MESSAGE_TERMINATORS,
      // `<|call|>` is a stop token servers often strip, so a call the text ends inside still counts.
      parseBody: (body) => (offered ? [toolCallEvent(name, argumentsJsonFromText(body), 'harmony')] : undefined),
    },
    context.counter,
  );
  return { length, block };
}

export const harmonySyntax: OpeningSyntax = {
  triggers: '<',
  formats: ['harmony'],
  prefixes: [START, CHANNEL],
  open(reader, context) {
    const header = readHeader(reader);
    return header === undefined ? undefined : openMessage(reader, context, header);
  },
};

/**
 * A first message whose `<|start|>assistant` the template wrote into the prompt, so the answer opens
 * with the rest of the role part: ` to=functions.get_weather<|channel|>commentary json<|message|>{…}`.
 * Read only where the answer's messages start, and only with a function recipient and a channel
 * header after it, so prose that writes `to=` stays prose.
 */
export const harmonyRecipientFirstSyntax: OpeningSyntax = {
  triggers: 't',
  formats: ['harmony'],
  onlyAtSegmentStart: true,
  prefixes: [RECIPIENT + FUNCTIONS],
  open(reader, context) {
    if (!context.atSegmentStart || !reader.accept(RECIPIENT)) return undefined;
    const recipient = reader.word();
    const header = readHeader(reader);
    if (header?.channel === undefined) return undefined;
    return openMessage(reader, context, { channel: header.channel, recipient: header.recipient ?? recipient });
  },
};
