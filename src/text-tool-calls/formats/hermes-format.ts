/**
 * Hermes (NousResearch, Qwen 2.5/3): `<tool_call>{"name": "get_weather", "arguments": {…}}</tool_call>`,
 * one call per tag pair.
 */
import { readCallObjectOrArrayHead } from '../call-object-head.js';
import { DelimitedCallBlock } from '../delimited-call-block.js';
import { readJsonCallBody } from '../json-call-body.js';
import { openingText, type OpeningSyntax } from '../parser-block.js';
import { TOOL_CALL_OPEN, TOOL_CALL_TERMINATORS } from '../tool-call-tags.js';

export const hermesSyntax: OpeningSyntax = {
  triggers: '<',
  formats: ['hermes'],
  prefixes: [TOOL_CALL_OPEN],
  open(reader, context) {
    if (!reader.accept(TOOL_CALL_OPEN)) return undefined;
    reader.skipWhitespace();
    if (readCallObjectOrArrayHead(reader, context.tools) === undefined) return undefined;
    const block = new DelimitedCallBlock(
      {
        opening: openingText(reader),
        bodyOffset: TOOL_CALL_OPEN.length,
        terminators: TOOL_CALL_TERMINATORS,
        parseBody: (body, ending) => readJsonCallBody(body, ending, { tools: context.tools, format: 'hermes', severalObjects: true }),
      },
      context.counter,
    );
    return { length: reader.position - reader.start, block };
  },
};
