/**
 * How an assistant is shown over the API. Callers who may only use an assistant (a published
 * one, as a learner) see a summary: its instructions stay with those who may configure it.
 */
import { decideAssistant, type AssistantAction, type AssistantFacts } from '../auth/permissions.js';
import type { Identity } from '../auth/identity.js';
import type { AssistantRecord } from '../store/assistants-repository.js';
import type { AssistantSnapshot } from '../pipeline/assistant-metadata/assistant-snapshot.js';
import type { AssistantMetadata } from '../pipeline/assistant-metadata/metadata-normalizer.js';

const ALL_ACTIONS: readonly AssistantAction[] = ['view', 'view_configuration', 'chat', 'update', 'delete', 'publish', 'share', 'export'];

export function assistantFacts(record: AssistantRecord): AssistantFacts {
  return {
    ownerId: record.owner_id,
    organizationId: record.organization_id,
    published: record.published === 1,
    deleted: record.deleted_at !== null,
    sharedWithCaller: record.shared_with_caller,
  };
}

export function splitCollections(stored: string): string[] {
  return stored
    .split(',')
    .map((collection) => collection.trim())
    .filter((collection) => collection !== '');
}

export interface AssistantSummaryView {
  id: number;
  name: string;
  description: string;
  owner: string;
  /** The owner's name, for people to read; empty when the account has none (then pages show `owner`). */
  owner_name: string;
  organization_id: number;
  assistant_type: 'classic' | 'multi_tool';
  published: boolean;
  published_at: string | null;
  created_at: string;
  updated_at: string;
  /** A multi-tool assistant with at least one enabled assistant tool (docs/assistants.md). */
  is_orchestrator: boolean;
  /** Whether the owner shared it with the caller (the list's "Shared with you"). */
  shared_with_caller: boolean;
  /** How many users it is shared with; only for callers who may manage its sharing. */
  shared_with_count?: number;
  /** What the caller may do with it, as decided by the permission module. */
  allowed_actions: AssistantAction[];
}

export interface AssistantView extends AssistantSummaryView {
  system_prompt: string;
  prompt_template: string;
  metadata: AssistantMetadata;
  rag_collections: string[];
  rag_top_k: number;
}

export function assistantView(identity: Identity, record: AssistantRecord): AssistantSummaryView | AssistantView {
  const facts = assistantFacts(record);
  const allowedActions = ALL_ACTIONS.filter((action) => decideAssistant(identity, facts, action).allowed);
  const summary: AssistantSummaryView = {
    id: record.id,
    name: record.name,
    description: record.description,
    owner: record.owner_email,
    owner_name: record.owner_name,
    organization_id: record.organization_id,
    assistant_type: record.assistant_type,
    published: record.published === 1,
    published_at: record.published_at,
    created_at: record.created_at,
    updated_at: record.updated_at,
    is_orchestrator: record.orchestrator === 1,
    shared_with_caller: record.shared_with_caller,
    ...(allowedActions.includes('share') && { shared_with_count: record.shared_with_count }),
    allowed_actions: allowedActions,
  };
  if (!allowedActions.includes('view_configuration')) return summary;
  return {
    ...summary,
    system_prompt: record.system_prompt,
    prompt_template: record.prompt_template,
    metadata: JSON.parse(record.metadata) as AssistantMetadata,
    rag_collections: splitCollections(record.rag_collections),
    rag_top_k: record.rag_top_k,
  };
}

/** The assistant as the pipeline runs it: its stored row read into the shape the core takes. */
export function snapshotOf(record: AssistantRecord): AssistantSnapshot {
  return {
    id: record.id,
    name: record.name,
    ownerId: record.owner_id,
    organizationId: record.organization_id,
    systemPrompt: record.system_prompt,
    promptTemplate: record.prompt_template,
    metadata: JSON.parse(record.metadata) as AssistantMetadata,
    ragCollections: splitCollections(record.rag_collections),
    ragTopK: record.rag_top_k,
  };
}
