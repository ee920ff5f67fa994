/**
 * Text tool calls: the streaming parser that reads tool calls local models write as text, its
 * vocabulary, and its bounds. Nothing here touches HTTP or SQL.
 */
export { TextToolCallParser, type TextParserStatistics } from './text-tool-call-parser.js';
export {
  TEXT_TOOL_CALL_FORMATS,
  isTextToolCallFormat,
  type OfferedTool,
  type TextParserEvent,
  type TextToolCallFormat,
  type TextToolCallParserOptions,
  type ToolCallEvent,
  type ToolCallFormatSetting,
} from './text-tool-call-types.js';
export { MAX_CALL_CHARACTERS, MAX_OPENING_CHARACTERS, MAX_OPENING_WHITESPACE } from './parser-limits.js';
