/**
 * A model imitating the OpenAI message shape in text:
 * `{"tool_calls": [{"name": "get_weather", "arguments": {…}}]}`, items also as
 * `{"type": "function", "function": {"name": …, "arguments": "<JSON text>"}}`. A `content` string
 * beside the calls is kept as text.
 */
import { readCallObjectHead } from '../json/call-object-head.js';
import type { OpeningSyntax } from '../blocks/parser-block.js';
import { openJsonValueCall } from '../json/json-value-calls.js';

export const openAiJsonSyntax: OpeningSyntax = {
  triggers: '{',
  formats: ['openai_json'],
  open(reader, context) {
    if (readCallObjectHead(reader, context.tools, true)?.wrapped !== true) return undefined;
    return openJsonValueCall(reader, context, { valueOffset: 0, format: 'openai_json' });
  },
};
