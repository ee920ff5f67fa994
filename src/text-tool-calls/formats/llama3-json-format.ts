/**
 * Llama 3.1/3.3 JSON calls: `{"name": "get_weather", "parameters": {…}}` (or `"arguments"`), bare or
 * after `<|python_tag|>`, several separated by `;`. A bare object must carry its arguments to count
 * as a call; after the tag, the tag is evidence enough.
 */
import { readCallObjectHead } from '../json/call-object-head.js';
import type { OpeningContext, OpeningSyntax } from '../blocks/parser-block.js';
import type { OpeningReader } from '../scanning/opening-reader.js';
import { openJsonValueCall } from '../json/json-value-calls.js';

export const PYTHON_TAG = '<|python_tag|>';

function openChain(
  reader: OpeningReader,
  context: OpeningContext,
  valueOffset: number,
  requireArguments: boolean,
): ReturnType<OpeningSyntax['open']> {
  if (readCallObjectHead(reader, context.tools, false) === undefined) return undefined;
  return openJsonValueCall(reader, context, { valueOffset, format: 'llama3_json', chained: true, rules: { requireArguments } });
}

export const bareLlama3JsonSyntax: OpeningSyntax = {
  triggers: '{',
  formats: ['llama3_json'],
  open: (reader, context) => openChain(reader, context, 0, true),
};

export const taggedLlama3JsonSyntax: OpeningSyntax = {
  triggers: '<',
  formats: ['llama3_json'],
  prefixes: [PYTHON_TAG],
  open(reader, context) {
    if (!reader.accept(PYTHON_TAG)) return undefined;
    reader.skipWhitespace();
    return openChain(reader, context, reader.position - reader.start, false);
  },
};
