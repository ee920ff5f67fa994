/**
 * InternLM2/2.5: one call object after the action tokens, with `parameters` for its arguments,
 *
 *   <|action_start|><|plugin|>
 *   {"name": "get_weather", "parameters": {"city": "Paris"}}<|action_end|>
 *
 * The code interpreter's action (`<|action_start|><|interpreter|>`) is not a function call and stays text.
 */
import { singleFormatTags, taggedJsonCallSyntax } from '../json/tagged-json-call.js';

export const internlm2Syntax = taggedJsonCallSyntax(singleFormatTags(['<|action_start|>', '<|plugin|>'], '<|action_end|>', 'internlm2'));
