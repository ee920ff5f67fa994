/**
 * Hermes (NousResearch, Qwen 2.5/3): `<tool_call>{"name": "get_weather", "arguments": {…}}</tool_call>`,
 * one call per tag pair.
 */
import { singleFormatTags, taggedJsonCallSyntax } from '../json/tagged-json-call.js';
import { TOOL_CALL_CLOSE, TOOL_CALL_OPEN } from '../blocks/tool-call-tags.js';

export const hermesSyntax = taggedJsonCallSyntax(singleFormatTags([TOOL_CALL_OPEN], TOOL_CALL_CLOSE, 'hermes', true));
