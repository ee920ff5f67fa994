/**
 * NVIDIA Nemotron Nano v2: a list of call objects (or one object) between `<TOOLCALL>` and
 * `</TOOLCALL>`, `<TOOLCALL>[{"name": "get_weather", "arguments": {…}}]</TOOLCALL>`.
 */
import { singleFormatTags, taggedJsonCallSyntax } from '../json/tagged-json-call.js';

export const nemotronV2Syntax = taggedJsonCallSyntax(singleFormatTags(['<TOOLCALL>'], '</TOOLCALL>', 'nemotron_v2'));
