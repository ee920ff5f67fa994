/**
 * The assistant as the API answers with it (src/assistants/assistant-view.ts): a summary for
 * those who may only use it, the whole configuration for those who may see it. `allowed_actions`
 * is the permission module's decision; pages show only the controls it allows.
 */
export type AssistantAction = 'view' | 'view_configuration' | 'chat' | 'update' | 'delete' | 'publish' | 'share' | 'export';

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

export interface AssistantSummary {
  id: number;
  name: string;
  description: string;
  owner: string;
  organization_id: number;
  assistant_type: 'classic' | 'multi_tool';
  published: boolean;
  published_at: string | null;
  created_at: string;
  updated_at: string;
  /** A multi-tool assistant with at least one enabled assistant tool. */
  is_orchestrator: boolean;
  /** Whether its owner shared it with the caller. */
  shared_with_caller: boolean;
  /** How many users it is shared with; only for callers allowed to `share` it. */
  shared_with_count?: number;
  allowed_actions: AssistantAction[];
}

export interface Assistant extends AssistantSummary {
  system_prompt: string;
  prompt_template: string;
  metadata: AssistantMetadata;
  rag_collections: string[];
  rag_top_k: number;
}

export interface AssistantPage {
  items: (AssistantSummary | Assistant)[];
  /** How many match over all pages. */
  total: number;
}

export function hasConfiguration(assistant: AssistantSummary | Assistant): assistant is Assistant {
  return 'metadata' in assistant;
}

export function may(assistant: AssistantSummary, action: AssistantAction): boolean {
  return assistant.allowed_actions.includes(action);
}
