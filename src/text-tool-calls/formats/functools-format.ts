/**
 * Phi-4-mini and Firefunction: `functools[{"name": "get_weather", "arguments": {…}}, …]`, with no
 * closing marker but the list's own `]`.
 */
import { BalancedCallBlock } from '../balanced-call-block.js';
import { readCallObjectHead } from '../call-object-head.js';
import { jsonValueCallEvents } from '../json-value-calls.js';
import { openingText, type OpeningSyntax } from '../parser-block.js';
import { JsonValueScanner } from '../value-scanner.js';

const MARKER = 'functools';

export const functoolsSyntax: OpeningSyntax = {
  triggers: 'f',
  formats: ['functools'],
  prefixes: [MARKER],
  open(reader, context) {
    if (!reader.accept(MARKER)) return undefined;
    reader.skipWhitespace();
    const valueOffset = reader.position - reader.start;
    if (!reader.accept('[')) return undefined;
    reader.skipWhitespace();
    if (readCallObjectHead(reader, context.tools, false) === undefined) return undefined;
    const block = new BalancedCallBlock(
      {
        opening: openingText(reader),
        valueOffset,
        createScanner: () => new JsonValueScanner(context.counter),
        chained: false,
        parseValues: (values) => jsonValueCallEvents(values, context.tools, 'functools'),
      },
      context.counter,
    );
    return { length: reader.position - reader.start, block };
  },
};
