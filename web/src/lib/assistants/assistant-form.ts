/**
 * The assistant form's values and the request body they become. Both types share name,
 * description, prompts and metadata; classic assistants add the knowledge bases and top-k their
 * rag_processor reads. Keys the form does not know stay in the metadata as they were.
 */
import type { Assistant, AssistantMetadata } from '$lib/api/assistant-types';
import type { AssistantBody } from '$lib/api/assistants';

export type AssistantKind = 'classic' | 'multi_tool';

export interface AssistantFormValues {
  name: string;
  description: string;
  system_prompt: string;
  prompt_template: string;
  metadata: AssistantMetadata;
  rag_collections: string[];
  rag_top_k: number;
}

/** LAMB's defaults for a new classic assistant (seed 000 §5.1): no retrieval until one is chosen. */
function classicMetadata(): AssistantMetadata {
  return {
    prompt_processor: 'simple_augment',
    connector: 'openai',
    llm: 'gpt-4o-mini',
    rag_processor: 'no_rag',
    capabilities: { vision: false, image_generation: false },
    verbose: false,
  };
}

/** The multi-tool defaults (seed 000 §5.2): multi_augment fills each tool's placeholder. */
function multiToolMetadata(): AssistantMetadata {
  return {
    assistant_type: 'multi_tool',
    prompt_processor: 'multi_augment',
    connector: 'openai',
    llm: 'gpt-4o-mini',
    capabilities: { vision: false, image_generation: false },
    verbose: false,
    tools: [],
  };
}

export function newAssistantValues(kind: AssistantKind): AssistantFormValues {
  return {
    name: '',
    description: '',
    system_prompt: '',
    prompt_template: '',
    metadata: kind === 'classic' ? classicMetadata() : multiToolMetadata(),
    rag_collections: [],
    rag_top_k: 3,
  };
}

export function valuesOf(assistant: Assistant): AssistantFormValues {
  return {
    name: assistant.name,
    description: assistant.description,
    system_prompt: assistant.system_prompt,
    prompt_template: assistant.prompt_template,
    metadata: structuredClone(assistant.metadata),
    rag_collections: [...assistant.rag_collections],
    rag_top_k: assistant.rag_top_k,
  };
}

/** The metadata keys that only mean something for one rag_processor (LAMB's flat classic fields). */
const SETTINGS_OF_PROCESSOR: Record<string, string[]> = {
  rubric_rag: ['rubric_id', 'rubric_format'],
  single_file_rag: ['file_path'],
};

/** Drops the settings of rag processors that are not chosen, so a switched processor leaves nothing behind. */
function classicMetadataToSave(metadata: AssistantMetadata): AssistantMetadata {
  const chosen = metadata.rag_processor ?? '';
  const dropped = new Set(Object.entries(SETTINGS_OF_PROCESSOR).flatMap(([processor, keys]) => (processor === chosen ? [] : keys)));
  return Object.fromEntries(Object.entries(metadata).filter(([key]) => !dropped.has(key)));
}

export function isMultiTool(metadata: AssistantMetadata): boolean {
  return metadata.assistant_type === 'multi_tool';
}

/** The body that creates or saves an assistant: the whole form. */
export function requestBodyOf(values: AssistantFormValues): AssistantBody {
  const multiTool = isMultiTool(values.metadata);
  return {
    name: values.name,
    description: values.description,
    system_prompt: values.system_prompt,
    prompt_template: values.prompt_template,
    metadata: multiTool ? values.metadata : classicMetadataToSave(values.metadata),
    ...(!multiTool && { rag_collections: values.rag_collections, rag_top_k: values.rag_top_k }),
  };
}
