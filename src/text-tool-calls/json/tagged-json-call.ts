/**
 * The shape Hermes made common: a call object (or a list of them) between an opening tag and a
 * closing one, `<tool_call>{"name": "get_weather", "arguments": {…}}</tool_call>`. Several families
 * write exactly this with their own tags (LongCat's `<longcat_tool_call>`, Nemotron's `<TOOLCALL>`,
 * InternLM2's `<|action_start|><|plugin|>`…), so each of them is this one syntax with its tags, not a
 * copy of Hermes. A second opening before the close means the model forgot to close the first.
 */
import { readCallObjectOrArrayHead } from './call-object-head.js';
import { DelimitedCallBlock } from '../blocks/delimited-call-block.js';
import { readJsonCallBody } from './json-call-body.js';
import { openingText, type OpeningContext, type OpeningSyntax } from '../blocks/parser-block.js';
import type { TextToolCallFormat } from '../vocabulary/text-tool-call-types.js';

export interface JsonCallTags {
  /** The opening tokens in order; blank space may separate them (`<|action_start|>` `<|plugin|>`). */
  opening: readonly [string, ...string[]];
  close: string;
  formats: readonly TextToolCallFormat[];
  /** The format the calls are reported in; it may depend on the setting when two formats share the tags. */
  formatFor: (context: OpeningContext) => TextToolCallFormat;
  /** Whether one pair of tags may hold several call objects one after the other (a repair; see json-call-body.ts). */
  severalObjects?: boolean;
}

export function taggedJsonCallSyntax(tags: JsonCallTags): OpeningSyntax {
  const first = tags.opening[0];
  return {
    triggers: first[0]!,
    formats: tags.formats,
    prefixes: [first],
    open(reader, context) {
      for (const [index, token] of tags.opening.entries()) {
        if (index > 0) reader.skipWhitespace();
        if (!reader.accept(token)) return undefined;
      }
      const bodyOffset = reader.position - reader.start;
      reader.skipWhitespace();
      if (readCallObjectOrArrayHead(reader, context.tools) === undefined) return undefined;
      const format = tags.formatFor(context);
      const block = new DelimitedCallBlock(
        {
          opening: openingText(reader),
          bodyOffset,
          terminators: [
            { token: tags.close, consumed: true },
            { token: first, consumed: false },
          ],
          parseBody: (body, ending) =>
            readJsonCallBody(body, ending, { tools: context.tools, format, severalObjects: tags.severalObjects === true }),
        },
        context.counter,
      );
      return { length: reader.position - reader.start, block };
    },
  };
}

/** Tags only one format writes. */
export function singleFormatTags(
  opening: JsonCallTags['opening'],
  close: string,
  format: TextToolCallFormat,
  severalObjects = false,
): JsonCallTags {
  return { opening, close, formats: [format], formatFor: () => format, severalObjects };
}
