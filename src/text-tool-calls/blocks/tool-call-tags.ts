/**
 * The tags several formats share: Hermes, Qwen3-Coder and GLM all wrap a call in `<tool_call>`…
 * `</tool_call>`. A second opening before the close means the model forgot to close the first.
 */
import type { Terminator } from '../scanning/terminator-search.js';

export const TOOL_CALL_OPEN = '<tool_call>';
export const TOOL_CALL_CLOSE = '</tool_call>';

export const TOOL_CALL_TERMINATORS: readonly Terminator[] = [
  { token: TOOL_CALL_CLOSE, consumed: true },
  { token: TOOL_CALL_OPEN, consumed: false },
];
