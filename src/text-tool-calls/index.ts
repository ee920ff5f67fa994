/**
 * The text tool-call library's one entry file: what Merino uses of it. The pipeline core builds a
 * parser for the formats an assistant allows, reads its events in the tool loop, and validates an
 * assistant's `tool_call_format` and `reasoning_opened` against the values listed here. The library imports nothing of
 * Merino, so it can be read, tested and benchmarked on its own.
 */
export { resolveReasoningOpened } from './reasoning/reasoning-families.js';
export { TextToolCallParser } from './text-tool-call-parser.js';
export {
  REASONING_OPENED_SETTINGS,
  TEXT_TOOL_CALL_FORMATS,
  type ReasoningOpenedSetting,
  type TextParserEvent,
  type ToolCallFormatSetting,
} from './vocabulary/text-tool-call-types.js';
