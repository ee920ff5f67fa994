/**
 * Turns the bracketed JSON values a balanced block collected into events: each value is a call
 * object, an array of them, or an OpenAI-style message; every call must name an offered tool. Also
 * opens that block for the formats whose call is JSON right after their opening.
 */
import { BalancedCallBlock } from '../blocks/balanced-call-block.js';
import { callEvents, textEvents } from './call-events.js';
import { readJsonCalls, type JsonCallRules } from './json-calls.js';
import type { OfferedToolSet } from '../vocabulary/offered-tool-set.js';
import type { OpeningReader } from '../scanning/opening-reader.js';
import { openingText, type Opening, type OpeningContext } from '../blocks/parser-block.js';
import type { TextParserEvent, TextToolCallFormat } from '../vocabulary/text-tool-call-types.js';
import { JsonValueScanner } from '../scanning/value-scanner.js';

export function jsonValueCallEvents(
  values: readonly string[],
  tools: OfferedToolSet,
  format: TextToolCallFormat,
  rules: JsonCallRules = { requireArguments: false },
): TextParserEvent[] | undefined {
  const events: TextParserEvent[] = [];
  for (const value of values) {
    const calls = readJsonCalls(value, tools, rules);
    if (calls === undefined) return undefined;
    if (calls.content !== undefined) events.push(...textEvents(calls.content));
    events.push(...callEvents(calls.calls, format));
  }
  return events;
}

export interface JsonValueCallOpening {
  /** Where the JSON value starts, counted from the opening's first character. */
  valueOffset: number;
  format: TextToolCallFormat;
  /** Several values one after another (`{…}; {…}`), as Llama 3 writes them. */
  chained?: boolean;
  rules?: JsonCallRules;
}

/** The block of a call written as JSON right after its opening: what the reader has read so far, then balanced JSON values. */
export function openJsonValueCall(reader: OpeningReader, context: OpeningContext, options: JsonValueCallOpening): Opening {
  const block = new BalancedCallBlock(
    {
      opening: openingText(reader),
      valueOffset: options.valueOffset,
      createScanner: () => new JsonValueScanner(context.counter),
      chained: options.chained ?? false,
      parseValues: (values) => jsonValueCallEvents(values, context.tools, options.format, options.rules),
    },
    context.counter,
  );
  return { length: reader.position - reader.start, block };
}
