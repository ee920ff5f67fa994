/**
 * What the assistant setting `reasoning_opened: auto` means for a model, read from its name. Deciding
 * from the output whether the template opened reasoning costs the answer's first words: the parser
 * must hold the output's first OPENING_CHARACTERS_MAXIMUM characters back until an end marker shows
 * up or cannot any more. So `auto` pays that wait only for models that may need it:
 *
 *  - families whose templates always open reasoning: `always`, decided before parsing;
 *  - families whose templates open it when thinking is switched on, and names that announce a
 *    reasoning model: `auto`, decided from the output;
 *  - every other model: `never`, so its answer streams from the first character. A model whose
 *    template opens reasoning under a name not listed here needs `always` set on its assistant.
 */
import type { ReasoningOpenedSetting } from '../vocabulary/text-tool-call-types.js';

/**
 * Model names (lower-cased substrings, blank space and `_` read as `-`) whose chat templates always open reasoning in the prompt, so
 * their output starts inside it.
 */
const TEMPLATE_OPENS_REASONING: readonly string[] = [
  'qwq',
  'deepseek-r1',
  'r1-distill',
  'thinking-2507',
  'apriel',
  'reka-flash',
  'cohere2moe',
  'command-a-reasoning',
];

/**
 * Model names (lower-cased substrings) whose templates open reasoning only when thinking is switched
 * on (the families of the engine corpus's template-opened samples: Qwen3 and Qwen3.5, Nemotron 3,
 * GLM 4.7, DeepSeek V3.1 and later, Magistral, Seed-OSS), and the words a reasoning model's name
 * carries. With thinking off, `always` would hide the whole answer, so these are decided from the output.
 */
const TEMPLATE_MAY_OPEN_REASONING: readonly string[] = [
  'qwen3',
  'nemotron',
  'glm-4.7',
  'deepseek-v3.1',
  'deepseek-v3.2',
  'deepseek-v4',
  'magistral',
  'seed-oss',
  'think',
  'reason',
];

/** What `auto` means for this model (see the header); `always` and `never` stay as they are. */
export function resolveReasoningOpened(setting: ReasoningOpenedSetting, modelName: string | undefined): ReasoningOpenedSetting {
  if (setting !== 'auto') return setting;
  // `DeepSeek V3.1`, `deepseek_v3.1` and `deepseek-v3.1` name one family.
  const lowered = (modelName ?? '').toLowerCase().replace(/[\s_]+/gu, '-');
  if (TEMPLATE_OPENS_REASONING.some((family) => lowered.includes(family))) return 'always';
  if (TEMPLATE_MAY_OPEN_REASONING.some((family) => lowered.includes(family))) return 'auto';
  return 'never';
}
