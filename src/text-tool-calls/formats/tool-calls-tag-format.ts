/**
 * Jamba and others: `<tool_calls>[{"name": "get_weather", "arguments": {…}}, …]</tool_calls>`. Hunyuan
 * A13B writes the same tags; in the `hunyuan` setting its calls are reported as Hunyuan's.
 */
import { taggedJsonCallSyntax } from '../json/tagged-json-call.js';

export const TOOL_CALLS_OPEN = '<tool_calls>';
export const TOOL_CALLS_CLOSE = '</tool_calls>';

export const toolCallsTagSyntax = taggedJsonCallSyntax({
  opening: [TOOL_CALLS_OPEN],
  close: TOOL_CALLS_CLOSE,
  formats: ['tool_calls_tag', 'hunyuan'],
  formatFor: (context) => (context.accepts('tool_calls_tag') ? 'tool_calls_tag' : 'hunyuan'),
  severalObjects: true,
});
