/**
 * Gemma 4: a call between the model's own tokens, its arguments in Gemma's notation (gemma4-values.ts),
 *
 *   <|tool_call>call:get_weather{city:<|"|>Paris<|"|>,days:3}<tool_call|>
 *
 * and reasoning in a thought channel, `<|channel>thought` ⏎ `…<channel|>`. Quirks the engines read:
 * the call closed by the end-of-turn token `<turn|>` instead, a stray colon after the opening token
 * (`<|tool_call>:call:…`), the closing token left out at the end of the text when the arguments are
 * complete, and the opening token dropped altogether (`call:get_weather{…}`, typically right after the
 * thought channel). That bare form starts with an ordinary word, so it is read only in the `gemma4`
 * setting, never in `auto`.
 */
import { BalancedCallBlock } from '../blocks/balanced-call-block.js';
import { DelimitedCallBlock } from '../blocks/delimited-call-block.js';
import type { OfferedToolSet } from '../vocabulary/offered-tool-set.js';
import type { OpeningReader } from '../scanning/opening-reader.js';
import { openingText, type OpeningContext, type OpeningSyntax } from '../blocks/parser-block.js';
import { StreamedBlock } from '../blocks/streamed-block.js';
import { trailingTokenSyntax } from '../blocks/trailing-token-syntax.js';
import { toolCallEvent, type TextParserEvent } from '../vocabulary/text-tool-call-types.js';
import { gemmaArgumentsJson, GemmaValueScanner } from './gemma4-values.js';
import { NOT_A_VALUE, STILL_OPEN } from '../scanning/value-scanner.js';

const CALL_OPEN = '<|tool_call>';
const CALL_CLOSE = '<tool_call|>';
const TURN_END = '<turn|>';
const CALL_WORD = 'call:';
const CHANNEL_OPEN = '<|channel>';
const CHANNEL_CLOSE = '<channel|>';
const THOUGHT = 'thought';

/** `call:name{` with an offered name; answers the name, the reader left on the `{`. */
function readCallHead(reader: OpeningReader, context: OpeningContext): string | undefined {
  if (!reader.accept(CALL_WORD)) return undefined;
  const name = reader.offeredName(context.tools);
  return name !== undefined && reader.peek() === 0x7b ? name : undefined;
}

/** The events of `call:name{…}` (and nothing else but blank space) in `text`. */
function readCall(text: string, tools: OfferedToolSet): TextParserEvent[] | undefined {
  const start = text.indexOf(CALL_WORD);
  const braces = text.indexOf('{', start);
  if (start === -1 || braces === -1 || text.slice(0, start).trim() !== '') return undefined;
  const name = text.slice(start + CALL_WORD.length, braces);
  if (!tools.has(name)) return undefined;
  const end = new GemmaValueScanner().scan(text, braces, text.length);
  if (end === STILL_OPEN || end === NOT_A_VALUE || text.slice(end).trim() !== '') return undefined;
  const argumentsJson = gemmaArgumentsJson(text.slice(braces, end));
  return argumentsJson === undefined ? undefined : [toolCallEvent(name, argumentsJson, 'gemma4')];
}

/** The body after `<|tool_call>`; whatever ended it, only a complete argument object makes a call. */
function readTaggedBody(body: string, tools: OfferedToolSet): TextParserEvent[] | undefined {
  return readCall(body.startsWith(':') ? body.slice(1) : body, tools);
}

export const gemma4Syntax: OpeningSyntax = {
  triggers: '<',
  formats: ['gemma4'],
  prefixes: [CALL_OPEN],
  open(reader, context) {
    if (!reader.accept(CALL_OPEN)) return undefined;
    reader.accept(':');
    if (readCallHead(reader, context) === undefined) return undefined;
    const block = new DelimitedCallBlock(
      {
        opening: openingText(reader),
        bodyOffset: CALL_OPEN.length,
        terminators: [
          { token: CALL_CLOSE, consumed: true },
          { token: TURN_END, consumed: true },
          { token: CALL_OPEN, consumed: false },
        ],
        parseBody: (body) => readTaggedBody(body, context.tools),
      },
      context.counter,
    );
    return { length: reader.position - reader.start, block };
  },
};

/** `call:name{…}` without its token: in the `gemma4` setting only, ending where its braces close. */
export const bareGemma4Syntax: OpeningSyntax = {
  triggers: 'c',
  formats: ['gemma4'],
  prefixes: [CALL_WORD],
  namedOnly: true,
  open(reader, context) {
    const name = readCallHead(reader, context);
    if (name === undefined) return undefined;
    const opening = openingText(reader);
    const block = new BalancedCallBlock(
      {
        opening,
        valueOffset: opening.length,
        createScanner: () => new GemmaValueScanner(context.counter),
        chained: false,
        parseValues: ([argumentsText]) => {
          const argumentsJson = gemmaArgumentsJson(argumentsText ?? '');
          return argumentsJson === undefined ? undefined : [toolCallEvent(name, argumentsJson, 'gemma4')];
        },
      },
      context.counter,
    );
    return { length: opening.length, block };
  },
};

/**
 * The thought channel is reasoning (its `thought` label is not). At the start of the answer or after
 * a call `<|channel>` suffices; elsewhere (Gemma sometimes opens a second, empty one after its
 * answer) only the whole `<|channel>thought` ⏎ is taken for one, so prose naming the token stays text.
 */
export const gemma4ThoughtSyntax: OpeningSyntax = {
  triggers: '<',
  formats: 'reasoning',
  prefixes: [CHANNEL_OPEN],
  open(reader, context) {
    if (!reader.accept(CHANNEL_OPEN)) return undefined;
    const labelled = reader.accept(THOUGHT) && (reader.accept('\n') || reader.accept('\r\n'));
    if (!labelled && !context.atSegmentStart) return undefined;
    return {
      length: reader.position - reader.start,
      block: new StreamedBlock('reasoning', [{ token: CHANNEL_CLOSE, consumed: true }], context.counter),
    };
  },
};

/** A `<channel|>` with no channel open, which Gemma 4 leaves after a call or at the very end of its answer. */
export const strayChannelCloseSyntax: OpeningSyntax = trailingTokenSyntax(CHANNEL_CLOSE, ['gemma4'], true);
