/**
 * The prompt processor plugin contract: from the assistant, the conversation and the tools'
 * outputs, build the messages the model receives. Each file in src/prompt-processors/
 * default-exports one `definePromptProcessor({...})`.
 */
import type { AssistantSnapshot } from '../assistant-metadata/assistant-snapshot.js';
import type { Source } from '../conversation/events.js';
import type { ChatMessage } from '../conversation/messages.js';
import type { ToolContext } from './tool-definition.js';

export interface PromptInput {
  assistant: AssistantSnapshot;
  messages: readonly ChatMessage[];
  /** Each placeholder's content (already joined when several tools wrote it), by name without braces. */
  values: Readonly<Record<string, string>>;
  /** Every placeholder some registered tool declares; only these (and user_input) are ever replaced. */
  knownPlaceholders: ReadonlySet<string>;
  /** Every source, tagged with the tool and placeholder it came from. */
  sources: readonly Source[];
  /** The functions the model is offered in this request (for processors that explain them). */
  functions?: ReadonlyArray<{ name: string; description: string }>;
}

export interface PromptProcessorDefinition {
  name: string;
  description: string;
  /** Placeholders this processor fills itself (moodle_augment's `moodle_user`), known to every template. */
  placeholders?: readonly string[];
  /** Computes those placeholders' values before `process`; a failure leaves them empty. */
  resolveValues?(context: ToolContext): Promise<Record<string, string>>;
  process(input: PromptInput): ChatMessage[];
}

export function definePromptProcessor(definition: PromptProcessorDefinition): PromptProcessorDefinition {
  return definition;
}
