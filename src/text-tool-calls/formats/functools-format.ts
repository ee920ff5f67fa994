/**
 * Phi-4-mini and Firefunction: `functools[{"name": "get_weather", "arguments": {…}}, …]`, with no
 * closing marker but the list's own `]`.
 */
import { readCallObjectHead } from '../json/call-object-head.js';
import type { OpeningSyntax } from '../blocks/parser-block.js';
import { openJsonValueCall } from '../json/json-value-calls.js';

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
    return openJsonValueCall(reader, context, { valueOffset, format: 'functools' });
  },
};
