/**
 * Harmony (gpt-oss) output with its special tokens stripped, as a server that skips special tokens
 * returns it: the headers' words run into the text,
 *
 *   analysisNeed the weather.assistantcommentary to=functions.get_weather json{"city": "Paris"}assistantfinalIt is sunny.
 *
 * A call is `[assistant]commentary to=functions.<offered name>` (or, with the recipient in the
 * role part, `assistant to=functions.<offered name>commentary`), an optional content type (`json`,
 * glued to the name or not) and a JSON object. The channels' words are headers too: `analysis…` is
 * reasoning, `assistantfinal` and a recipient-less `assistantcommentary` are dropped. All of it is read only in the `harmony_plain` setting, never in `auto`: the headers are ordinary
 * English words, and as triggers their first letters (`a`, `c`) would stop the text scan at one
 * character in ten and halve auto mode's throughput on prose. This is not read by the `harmony`
 * format: with the tokens gone, its header syntax has nothing to anchor on.
 */
import { BalancedCallBlock } from '../blocks/balanced-call-block.js';
import { DroppedMarkerBlock } from '../blocks/dropped-marker-block.js';
import { argumentsJsonFromText } from '../json/json-calls.js';
import { openingText, type OpeningSyntax } from '../blocks/parser-block.js';
import { StreamedBlock } from '../blocks/streamed-block.js';
import type { Terminator } from '../scanning/terminator-search.js';
import { toolCallEvent } from '../vocabulary/text-tool-call-types.js';
import { JsonValueScanner } from '../scanning/value-scanner.js';

const ROLE = 'assistant';
const COMMENTARY = 'commentary';
const RECIPIENT = 'to=functions.';
const CONSTRAIN = '<|constrain|>';
const MESSAGE = '<|message|>';
const CONTENT_TYPE = 'json';
const ANALYSIS = 'analysis';
const ASSISTANT_ANALYSIS = `${ROLE}${ANALYSIS}`;
const ASSISTANT_COMMENTARY = `${ROLE}${COMMENTARY}`;
const ASSISTANT_FINAL = `${ROLE}final`;

/** Reasoning runs until the next message's glued header. */
const REASONING_TERMINATORS: readonly Terminator[] = [
  { token: ASSISTANT_FINAL, consumed: true },
  { token: ASSISTANT_COMMENTARY, consumed: false },
  { token: ASSISTANT_ANALYSIS, consumed: false },
];

export const harmonyPlainCallSyntax: OpeningSyntax = {
  triggers: 'ac',
  formats: ['harmony_plain'],
  namedOnly: true,
  prefixes: [`${ASSISTANT_COMMENTARY} `, `${COMMENTARY} `, `${ROLE} ${RECIPIENT}`],
  open(reader, context) {
    // The recipient sits after the channel (`commentary to=…`) or after the role (`assistant to=…commentary`).
    const role = reader.accept(ROLE);
    const channelFirst = reader.accept(COMMENTARY);
    if (!role && !channelFirst) return undefined;
    reader.skipWhitespace();
    if (!reader.accept(RECIPIENT)) return undefined;
    const name = reader.offeredName(context.tools);
    if (name === undefined) return undefined;
    if (!channelFirst && !reader.accept(COMMENTARY)) return undefined;
    reader.skipWhitespace();
    reader.accept(CONSTRAIN);
    reader.accept(CONTENT_TYPE);
    reader.accept(MESSAGE);
    reader.skipWhitespace();
    const valueOffset = reader.position - reader.start;
    if (reader.peek() !== 0x7b) return undefined;
    const block = new BalancedCallBlock(
      {
        opening: openingText(reader),
        valueOffset,
        createScanner: () => new JsonValueScanner(context.counter),
        chained: false,
        parseValues: (values) => [toolCallEvent(name, argumentsJsonFromText(values[0]!), 'harmony_plain')],
      },
      context.counter,
    );
    return { length: reader.position - reader.start, block };
  },
};

/** The channels' headers. */
export const harmonyPlainChannelSyntax: OpeningSyntax = {
  triggers: 'a',
  formats: ['harmony_plain'],
  namedOnly: true,
  prefixes: [ASSISTANT_ANALYSIS, ASSISTANT_FINAL, ASSISTANT_COMMENTARY, ANALYSIS],
  open(reader, context) {
    const reasoning = () => new StreamedBlock('reasoning', REASONING_TERMINATORS, context.counter);
    if (reader.accept(ASSISTANT_ANALYSIS)) return { length: ASSISTANT_ANALYSIS.length, block: reasoning() };
    if (reader.accept(ASSISTANT_FINAL)) return { length: ASSISTANT_FINAL.length, block: new DroppedMarkerBlock() };
    if (reader.accept(ASSISTANT_COMMENTARY)) {
      // A preamble to the user (no recipient) is text; a message to a recipient is the call syntax's.
      reader.skipWhitespace();
      if (reader.accept('to=')) return undefined;
      return { length: ASSISTANT_COMMENTARY.length, block: new DroppedMarkerBlock() };
    }
    // The first message's role is in the prompt, so the answer opens with the bare channel.
    if (context.atSegmentStart && reader.accept(ANALYSIS)) return { length: reader.position - reader.start, block: reasoning() };
    return undefined;
  },
};
