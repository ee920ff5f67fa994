/**
 * The vocabulary of text tool calls: the formats local models write calls in, the tools a parser
 * may turn text into calls of, and the events it emits. Shared by the parser, the tool loop and
 * the connectors, so it depends on nothing.
 */

/** Every format the parser recognises, in the order the docs list them. */
export const TEXT_TOOL_CALL_FORMATS = [
  'xml_function',
  'hermes',
  'json_array',
  'llama3_json',
  'pythonic',
  'mistral',
  'deepseek_v3',
  'deepseek_v31',
  'granite',
  'tool_calls_tag',
  'functools',
  'glm',
  'kimi_k2',
  'harmony',
  'gemma_tool_code',
  'openai_json',
  'apertus',
  'internlm2',
  'granite_20b_fc',
  'longcat',
  'function_gemma',
  'minimax_m2',
  'step3',
  'hunyuan',
  'functionary_v31',
  'functionary_v32',
  'nemotron_v2',
  'harmony_plain',
  'lfm2',
  'gemma4',
  'olmo3',
  'deepseek_v32',
  'gigachat3',
  'cohere_command',
  'seed_oss',
  'minimax_m1',
] as const;

export type TextToolCallFormat = (typeof TEXT_TOOL_CALL_FORMATS)[number];

/** `native`: the server returns structured calls and no text parsing happens; `auto`: try every format. */
export type ToolCallFormatSetting = 'auto' | 'native' | TextToolCallFormat;

/** A tool the model was offered; only these names ever become calls. */
export interface OfferedTool {
  name: string;
  /** JSON Schema (type object) of the arguments; XML-style values are typed by it. */
  parameters: Record<string, unknown>;
}

export type TextParserEvent =
  | { type: 'text'; text: string }
  | { type: 'reasoning'; text: string }
  | {
      type: 'tool-call';
      name: string;
      /** JSON text of an object; the model's own text when it wrote broken JSON, so the loop can report it. */
      argumentsJson: string;
      format: TextToolCallFormat;
    };

export type ToolCallEvent = Extract<TextParserEvent, { type: 'tool-call' }>;

/**
 * Whether the chat template opens reasoning before the model writes: `always` (the output starts
 * inside reasoning and only its end marker appears), `never` (it does not), or `auto` (decided from
 * the model family's template where known, otherwise from the output itself).
 */
export const REASONING_OPENED_SETTINGS = ['auto', 'always', 'never'] as const;

export type ReasoningOpenedSetting = (typeof REASONING_OPENED_SETTINGS)[number];

export interface TextToolCallParserOptions {
  tools: readonly OfferedTool[];
  format: Exclude<ToolCallFormatSetting, 'native'>;
  /** Whether the output starts inside reasoning the template opened; `never` when absent. */
  reasoningOpened?: ReasoningOpenedSetting;
}

export function toolCallEvent(name: string, argumentsJson: string, format: TextToolCallFormat): ToolCallEvent {
  return { type: 'tool-call', name, argumentsJson, format };
}
