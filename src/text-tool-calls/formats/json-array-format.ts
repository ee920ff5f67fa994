/**
 * A bare JSON array of calls (seed 004 format 3): `[{"name": "get_weather", "arguments": {…}}, …]`.
 * With no tag around it, each object must carry its arguments to count as a call.
 */
import { BalancedCallBlock } from '../balanced-call-block.js';
import { readCallObjectHead } from '../call-object-head.js';
import { jsonValueCallEvents } from '../json-value-calls.js';
import { openingText, type OpeningSyntax } from '../parser-block.js';
import { JsonValueScanner } from '../value-scanner.js';

export const jsonArraySyntax: OpeningSyntax = {
  triggers: '[',
  formats: ['json_array'],
  open(reader, context) {
    if (!reader.accept('[')) return undefined;
    reader.skipWhitespace();
    if (readCallObjectHead(reader, context.tools, false) === undefined) return undefined;
    const block = new BalancedCallBlock(
      {
        opening: openingText(reader),
        valueOffset: 0,
        createScanner: () => new JsonValueScanner(context.counter),
        chained: false,
        parseValues: (values) => jsonValueCallEvents(values, context.tools, 'json_array', { requireArguments: true }),
      },
      context.counter,
    );
    return { length: reader.position - reader.start, block };
  },
};
