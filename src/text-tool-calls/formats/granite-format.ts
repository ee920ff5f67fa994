/** IBM Granite 3.x: `<|tool_call|>[{"name": "get_weather", "arguments": {…}}]`. */
import { BalancedCallBlock } from '../balanced-call-block.js';
import { readCallObjectOrArrayHead } from '../call-object-head.js';
import { jsonValueCallEvents } from '../json-value-calls.js';
import { openingText, type OpeningSyntax } from '../parser-block.js';
import { JsonValueScanner } from '../value-scanner.js';

const TOOL_CALL_TOKEN = '<|tool_call|>';

export const graniteSyntax: OpeningSyntax = {
  triggers: '<',
  formats: ['granite'],
  prefixes: [TOOL_CALL_TOKEN],
  open(reader, context) {
    if (!reader.accept(TOOL_CALL_TOKEN)) return undefined;
    reader.skipWhitespace();
    const valueOffset = reader.position - reader.start;
    if (readCallObjectOrArrayHead(reader, context.tools) === undefined) return undefined;
    const block = new BalancedCallBlock(
      {
        opening: openingText(reader),
        valueOffset,
        createScanner: () => new JsonValueScanner(context.counter),
        chained: false,
        parseValues: (values) => jsonValueCallEvents(values, context.tools, 'granite'),
      },
      context.counter,
    );
    return { length: reader.position - reader.start, block };
  },
};
