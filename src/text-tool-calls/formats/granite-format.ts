/**
 * IBM Granite 3.x: `<|tool_call|>[{"name": "get_weather", "arguments": {…}}]`; Granite 3.1 may write
 * the token as plain text, `<tool_call>[…]` with no closing tag (in auto mode Hermes reads that
 * spelling first; this syntax reads it when the setting is `granite`).
 */
import { readCallObjectOrArrayHead } from '../json/call-object-head.js';
import type { OpeningReader } from '../scanning/opening-reader.js';
import type { Opening, OpeningContext, OpeningSyntax } from '../blocks/parser-block.js';
import { TOOL_CALL_OPEN } from '../blocks/tool-call-tags.js';
import { openJsonValueCall } from '../json/json-value-calls.js';

const TOOL_CALL_TOKEN = '<|tool_call|>';

function graniteSyntaxAfter(token: string, requireList: boolean): OpeningSyntax {
  return {
    triggers: '<',
    formats: ['granite'],
    prefixes: [token],
    open(reader, context) {
      if (!reader.accept(token)) return undefined;
      reader.skipWhitespace();
      if (requireList && reader.peek() !== 0x5b) return undefined;
      return openGraniteList(reader, context);
    },
  };
}

function openGraniteList(reader: OpeningReader, context: OpeningContext): Opening | undefined {
  const valueOffset = reader.position - reader.start;
  if (readCallObjectOrArrayHead(reader, context.tools) === undefined) return undefined;
  return openJsonValueCall(reader, context, { valueOffset, format: 'granite' });
}

export const graniteSyntax = graniteSyntaxAfter(TOOL_CALL_TOKEN, false);

/** Granite 3.1's plain-text spelling; a list must follow, so Hermes-style single objects are not read as Granite's. */
export const graniteToolCallTagSyntax = graniteSyntaxAfter(TOOL_CALL_OPEN, true);
