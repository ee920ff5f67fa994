/** Jamba and others: `<tool_calls>[{"name": "get_weather", "arguments": {…}}, …]</tool_calls>`. */
import { readCallObjectOrArrayHead } from '../call-object-head.js';
import { DelimitedCallBlock } from '../delimited-call-block.js';
import { readJsonCallBody } from '../json-call-body.js';
import { openingText, type OpeningSyntax } from '../parser-block.js';

const OPEN = '<tool_calls>';
const CLOSE = '</tool_calls>';

export const toolCallsTagSyntax: OpeningSyntax = {
  triggers: '<',
  formats: ['tool_calls_tag'],
  prefixes: [OPEN],
  open(reader, context) {
    if (!reader.accept(OPEN)) return undefined;
    reader.skipWhitespace();
    if (readCallObjectOrArrayHead(reader, context.tools) === undefined) return undefined;
    const block = new DelimitedCallBlock(
      {
        opening: openingText(reader),
        bodyOffset: OPEN.length,
        terminators: [
          { token: CLOSE, consumed: true },
          { token: OPEN, consumed: false },
        ],
        parseBody: (body, ending) =>
          readJsonCallBody(body, ending, { tools: context.tools, format: 'tool_calls_tag', severalObjects: true }),
      },
      context.counter,
    );
    return { length: reader.position - reader.start, block };
  },
};
