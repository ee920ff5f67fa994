/**
 * A bare JSON array of calls (seed 004 format 3): `[{"name": "get_weather", "arguments": {…}}, …]`.
 * With no tag around it, each object must carry its arguments to count as a call.
 */
import { readCallObjectHead } from '../json/call-object-head.js';
import type { OpeningSyntax } from '../blocks/parser-block.js';
import { openJsonValueCall } from '../json/json-value-calls.js';

export const jsonArraySyntax: OpeningSyntax = {
  triggers: '[',
  formats: ['json_array'],
  open(reader, context) {
    if (!reader.accept('[')) return undefined;
    reader.skipWhitespace();
    if (readCallObjectHead(reader, context.tools, false) === undefined) return undefined;
    return openJsonValueCall(reader, context, { valueOffset: 0, format: 'json_array', rules: { requireArguments: true } });
  },
};
