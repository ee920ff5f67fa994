/**
 * Meituan LongCat: Hermes's call object between its own tags,
 * `<longcat_tool_call>{"name": "get_weather", "arguments": {…}}</longcat_tool_call>`.
 */
import { singleFormatTags, taggedJsonCallSyntax } from '../json/tagged-json-call.js';

export const longcatSyntax = taggedJsonCallSyntax(singleFormatTags(['<longcat_tool_call>'], '</longcat_tool_call>', 'longcat'));
