/**
 * IBM Granite 20B Function Calling: each call is `<function_call>` then one call object, with no
 * closing tag but the object's own `}`; several calls follow one another,
 *
 *   <function_call> {"name": "get_weather", "arguments": {"city": "Paris"}}
 *   <function_call> {"name": "get_time", "arguments": {}}
 */
import { BalancedCallBlock } from '../balanced-call-block.js';
import { readCallObjectHead } from '../call-object-head.js';
import { jsonValueCallEvents } from '../json-value-calls.js';
import { openingText, type OpeningSyntax } from '../parser-block.js';
import { JsonValueScanner } from '../value-scanner.js';

const FUNCTION_CALL_TAG = '<function_call>';

export const granite20bFcSyntax: OpeningSyntax = {
  triggers: '<',
  formats: ['granite_20b_fc'],
  prefixes: [FUNCTION_CALL_TAG],
  open(reader, context) {
    if (!reader.accept(FUNCTION_CALL_TAG)) return undefined;
    reader.skipWhitespace();
    const valueOffset = reader.position - reader.start;
    if (readCallObjectHead(reader, context.tools, false) === undefined) return undefined;
    const block = new BalancedCallBlock(
      {
        opening: openingText(reader),
        valueOffset,
        createScanner: () => new JsonValueScanner(context.counter),
        chained: false,
        parseValues: (values) => jsonValueCallEvents(values, context.tools, 'granite_20b_fc'),
      },
      context.counter,
    );
    return { length: reader.position - reader.start, block };
  },
};
