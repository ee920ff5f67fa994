/**
 * The assistant as the API answers with it (src/assistants/assistant-view.ts): a summary for
 * those who may only use it, the whole configuration for those who may see it. `allowed_actions`
 * is the permission module's decision; pages show only the controls it allows. The shapes are
 * the generated ones (generated/openapi.ts); only the metadata is read more closely here.
 */
import type { JsonAnswer } from './json-answer';

export type AssistantAction = AssistantSummary['allowed_actions'][number];

export interface ToolEntry {
  type: string;
  enabled: boolean;
  config: Record<string, unknown>;
}

export interface AssistantMetadata {
  assistant_type?: 'multi_tool';
  connector?: string;
  llm?: string;
  prompt_processor?: string;
  rag_processor?: string;
  tools?: ToolEntry[];
  [key: string]: unknown;
}

/** An assistant as the API answers with it: the summary fields always, the configuration only to those who may see it. */
type AssistantAnswer = JsonAnswer<'/api/assistants/{id}', 'get'>;

/** The fields only those who may configure an assistant see (`view_configuration`). */
type ConfigurationField = 'system_prompt' | 'prompt_template' | 'metadata' | 'rag_collections' | 'rag_top_k';

export type AssistantSummary = Omit<AssistantAnswer, ConfigurationField>;

/** The whole assistant; its metadata read as the pages use it (the server sends it as it is stored). */
export type Assistant = AssistantSummary &
  Required<Pick<AssistantAnswer, Exclude<ConfigurationField, 'metadata'>>> & { metadata: AssistantMetadata };

export type AssistantPage = Omit<JsonAnswer<'/api/assistants', 'get'>, 'items'> & { items: (AssistantSummary | Assistant)[] };

export function hasConfiguration(assistant: AssistantSummary): assistant is Assistant {
  return 'metadata' in assistant;
}

export function may(assistant: AssistantSummary, action: AssistantAction): boolean {
  return assistant.allowed_actions.includes(action);
}

/** Who owns an assistant, as people read it: the owner's name, or their email when the account has none. */
export function ownerLabel(assistant: Pick<AssistantSummary, 'owner' | 'owner_name'>): string {
  return assistant.owner_name.trim() !== '' ? assistant.owner_name : assistant.owner;
}
