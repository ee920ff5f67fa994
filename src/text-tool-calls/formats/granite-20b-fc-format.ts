/**
 * IBM Granite 20B Function Calling: each call is `<function_call>` then one call object, with no
 * closing tag but the object's own `}`; several calls follow one another,
 *
 *   <function_call> {"name": "get_weather", "arguments": {"city": "Paris"}}
 *   <function_call> {"name": "get_time", "arguments": {}}
 */
import { readCallObjectHead } from '../json/call-object-head.js';
import type { OpeningSyntax } from '../blocks/parser-block.js';
import { openJsonValueCall } from '../json/json-value-calls.js';

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
    return openJsonValueCall(reader, context, { valueOffset, format: 'granite_20b_fc' });
  },
};
