/**
 * Swiss AI Apertus: a list of objects, each keyed by the tool's name, between the tools tokens,
 *
 *   <|tools_prefix|>[{"get_weather": {"city": "Paris"}}, {"get_time": {}}]<|tools_suffix|>
 *
 * The list ends the call, so a suffix the server stripped (it is a special token) loses nothing; a
 * suffix right after the list is dropped. Apertus reasons between `<|inner_prefix|>` and
 * `<|inner_suffix|>`, read as reasoning in every setting like `<think>`, but wherever it opens: the
 * tokens are special and never prose. The turn's own tokens, `<|assistant_start|>` at the start and
 * `<|assistant_end|>` at the very end, are dropped when a server leaves them in.
 */
import { BalancedCallBlock } from '../blocks/balanced-call-block.js';
import { DroppedMarkerBlock } from '../blocks/dropped-marker-block.js';
import { argumentsJsonFromText } from '../json/json-calls.js';
import { looseArrayElements, looseObjectMembers } from '../json/loose-json.js';
import type { OfferedToolSet } from '../vocabulary/offered-tool-set.js';
import { END } from '../scanning/opening-reader.js';
import { openingText, type OpeningSyntax } from '../blocks/parser-block.js';
import { StreamedBlock } from '../blocks/streamed-block.js';
import { toolCallEvent, type TextParserEvent } from '../vocabulary/text-tool-call-types.js';
import { JsonValueScanner } from '../scanning/value-scanner.js';

const TOOLS_PREFIX = '<|tools_prefix|>';
const TOOLS_SUFFIX = '<|tools_suffix|>';
const INNER_PREFIX = '<|inner_prefix|>';
const INNER_SUFFIX = '<|inner_suffix|>';
const ASSISTANT_START = '<|assistant_start|>';
const ASSISTANT_END = '<|assistant_end|>';

/** `[{"name": {…}}, …]` (or one such object) as calls; undefined when any item is no call of an offered tool. */
function readNameKeyedCalls(value: string, tools: OfferedToolSet): TextParserEvent[] | undefined {
  const trimmed = value.trim();
  const items = trimmed.startsWith('[') ? looseArrayElements(trimmed) : [trimmed];
  if (items === undefined || items.length === 0) return undefined;
  const events: TextParserEvent[] = [];
  for (const item of items) {
    const members = looseObjectMembers(item);
    const only = members?.length === 1 ? members[0] : undefined;
    // The arguments must be an object: a string, list or null in its place is no call.
    if (only === undefined || !tools.has(only.key) || !only.value.trimStart().startsWith('{')) return undefined;
    events.push(toolCallEvent(only.key, argumentsJsonFromText(only.value), 'apertus'));
  }
  return events;
}

export const apertusSyntax: OpeningSyntax = {
  triggers: '<',
  formats: ['apertus'],
  prefixes: [TOOLS_PREFIX],
  open(reader, context) {
    if (!reader.accept(TOOLS_PREFIX)) return undefined;
    reader.skipWhitespace();
    const valueOffset = reader.position - reader.start;
    const listed = reader.accept('[');
    if (listed) reader.skipWhitespace();
    if (!reader.accept('{')) return undefined;
    reader.skipWhitespace();
    if (!reader.accept('"') || reader.offeredName(context.tools) === undefined || !reader.accept('"')) return undefined;
    reader.skipWhitespace();
    if (!reader.accept(':')) return undefined;
    const block = new BalancedCallBlock(
      {
        opening: openingText(reader),
        valueOffset,
        createScanner: () => new JsonValueScanner(context.counter),
        chained: false,
        parseValues: (values) => readNameKeyedCalls(values[0]!, context.tools),
      },
      context.counter,
    );
    return { length: reader.position - reader.start, block };
  },
};

/** The suffix after the list, dropped; only right after a call, so prose naming the token keeps it. */
export const apertusSuffixSyntax: OpeningSyntax = {
  triggers: '<',
  formats: ['apertus'],
  onlyAtSegmentStart: true,
  prefixes: [TOOLS_SUFFIX],
  open(reader, context) {
    if (!context.atSegmentStart || !reader.accept(TOOLS_SUFFIX)) return undefined;
    return { length: TOOLS_SUFFIX.length, block: new DroppedMarkerBlock() };
  },
};

export const apertusReasoningSyntax: OpeningSyntax = {
  triggers: '<',
  formats: 'reasoning',
  prefixes: [INNER_PREFIX],
  open(reader, context) {
    if (!reader.accept(INNER_PREFIX)) return undefined;
    return {
      length: INNER_PREFIX.length,
      block: new StreamedBlock('reasoning', [{ token: INNER_SUFFIX, consumed: true }], context.counter),
    };
  },
};

/** `<|assistant_start|>` at the start of the answer, `<|assistant_end|>` when only blank space follows it. */
export const apertusTurnSyntax: OpeningSyntax = {
  triggers: '<',
  formats: ['apertus'],
  prefixes: [ASSISTANT_START, ASSISTANT_END],
  open(reader, context) {
    if (context.atSegmentStart && reader.accept(ASSISTANT_START))
      return { length: ASSISTANT_START.length, block: new DroppedMarkerBlock() };
    if (!reader.accept(ASSISTANT_END)) return undefined;
    reader.skipWhitespace();
    return reader.peek() === END ? { length: ASSISTANT_END.length, block: new DroppedMarkerBlock() } : undefined;
  },
};
