/**
 * A model imitating the OpenAI message shape in text:
 * `{"tool_calls": [{"name": "get_weather", "arguments": {…}}]}`, items also as
 * `{"type": "function", "function": {"name": …, "arguments": "<JSON text>"}}`. A `content` string
 * beside the calls is kept as text.
 */
import { BalancedCallBlock } from '../balanced-call-block.js';
import { readCallObjectHead } from '../call-object-head.js';
import { jsonValueCallEvents } from '../json-value-calls.js';
import { openingText, type OpeningSyntax } from '../parser-block.js';
import { JsonValueScanner } from '../value-scanner.js';

export const openAiJsonSyntax: OpeningSyntax = {
  triggers: '{',
  formats: ['openai_json'],
  open(reader, context) {
    if (readCallObjectHead(reader, context.tools, true)?.wrapped !== true) return undefined;
    const block = new BalancedCallBlock(
      {
        opening: openingText(reader),
        valueOffset: 0,
        createScanner: () => new JsonValueScanner(context.counter),
        chained: false,
        parseValues: (values) => jsonValueCallEvents(values, context.tools, 'openai_json'),
      },
      context.counter,
    );
    return { length: reader.position - reader.start, block };
  },
};
