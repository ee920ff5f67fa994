/**
 * Decides what a run of an assistant involves: which context tools with which configs, which
 * prompt processor, which connector and model. Classic assistants (seed 000) run their single
 * `rag_processor` through the same tool plugins, configured from LAMB's legacy fields, and its
 * output fills `{context}` as in LAMB; multi-tool assistants run every enabled context tool.
 */
import { assistantTypeOf, isOrchestrator, type AssistantMetadata } from './assistant-metadata/metadata-normalizer.js';
import { AppError } from '../errors/app-error.js';
import type { AssistantSnapshot } from './assistant-metadata/assistant-snapshot.js';
import type { ConnectorDefinition } from './plugin-contract/connector-definition.js';
import type { ContextToolRun } from './context-tools/context-orchestrator.js';
import type { PromptProcessorDefinition } from './plugin-contract/prompt-processor-definition.js';
import type { Registries } from './plugin-loading/registries.js';
import { CONTEXT_PLACEHOLDER } from './templates/template-rendering.js';
import { checkToolConfig } from './plugin-contract/tool-config-validation.js';
import type { ToolConfig } from './plugin-contract/tool-definition.js';

export interface AssistantPlan {
  contextTools: ContextToolRun[];
  promptProcessor: PromptProcessorDefinition;
  connector: ConnectorDefinition;
  model: string;
}

const NO_TOOL = 'no_rag';
const SIMPLE_RAG_TOP_K_MAXIMUM = 20;
const DEFAULT_CONNECTOR = 'openai';

/** LAMB kept a classic tool's settings in assistant columns and top-level metadata keys. */
export function classicToolConfig(toolName: string, assistant: AssistantSnapshot): ToolConfig {
  const metadata = assistant.metadata;
  switch (toolName) {
    case 'simple_rag':
      // LAMB allowed any top-k; the tool takes at most SIMPLE_RAG_TOP_K_MAXIMUM.
      return { collections: assistant.ragCollections, top_k: Math.min(assistant.ragTopK, SIMPLE_RAG_TOP_K_MAXIMUM) };
    case 'rubric_rag':
      return { ...(metadata.rubric_id ? { rubric_id: metadata.rubric_id } : {}), format: metadata.rubric_format ?? 'markdown' };
    case 'single_file_rag':
      return metadata.file_path ? { file_path: metadata.file_path } : {};
    default:
      return {};
  }
}

function toolRun(registries: Registries, toolName: string, rawConfig: ToolConfig, placeholderOverride?: string): ContextToolRun {
  const definition = registries.tools.get(toolName);
  const name = definition?.name ?? toolName;
  if (!definition) return { definition, toolName: name, config: rawConfig, placeholder: placeholderOverride ?? name };
  const placeholder = placeholderOverride ?? definition.placeholder ?? name;
  const check = checkToolConfig(definition, rawConfig);
  if (!check.valid) {
    return {
      definition,
      toolName: name,
      config: rawConfig,
      placeholder,
      configError: `invalid config: ${check.errors.map((problem) => problem.message).join('; ')}`,
    };
  }
  return { definition, toolName: name, config: check.config, placeholder };
}

/**
 * Function-only tools are offered to the model, never run before it. A classic `rag_processor`
 * naming one (saved before saves refused that) is skipped too: it has nothing to run. A tool
 * that is not installed stays, so its run reports that.
 */
function runsBeforehand(registries: Registries, toolName: string): boolean {
  const definition = registries.tools.get(toolName);
  return definition === undefined || definition.provide !== undefined;
}

function contextToolsOf(assistant: AssistantSnapshot, registries: Registries): ContextToolRun[] {
  if (assistantTypeOf(assistant.metadata) === 'classic') {
    const toolName = assistant.metadata.rag_processor ?? NO_TOOL;
    if (toolName === '' || toolName === NO_TOOL || !runsBeforehand(registries, toolName)) return [];
    return [toolRun(registries, toolName, classicToolConfig(toolName, assistant), CONTEXT_PLACEHOLDER)];
  }
  return (assistant.metadata.tools ?? [])
    .filter((entry) => entry.enabled)
    .filter((entry) => runsBeforehand(registries, entry.type))
    .filter((entry) => registries.tools.get(entry.type)?.name !== NO_TOOL)
    .map((entry) => {
      // LAMB's multi-tool form lets an entry choose its placeholder; it routes output and is not tool config.
      const { placeholder, ...config } = entry.config;
      return toolRun(registries, entry.type, config, typeof placeholder === 'string' ? placeholder : undefined);
    });
}

/** The prompt processor an assistant runs: the one its metadata names, else its type's default. */
export function promptProcessorNameOf(metadata: AssistantMetadata): string {
  const classic = assistantTypeOf(metadata) === 'classic';
  return metadata.prompt_processor ?? (classic ? 'simple_augment' : isOrchestrator(metadata) ? 'tool_augment' : 'multi_augment');
}

/** The connector an assistant runs on: the one its metadata names, else `openai`. */
export function connectorNameOf(metadata: AssistantMetadata): string {
  return metadata.connector ?? DEFAULT_CONNECTOR;
}

export function planAssistant(assistant: AssistantSnapshot, registries: Registries): AssistantPlan {
  const processorName = promptProcessorNameOf(assistant.metadata);
  const promptProcessor = registries.promptProcessors.get(processorName);
  if (!promptProcessor)
    throw new AppError('assistant_misconfigured', `The assistant uses prompt processor "${processorName}", which is not installed.`);
  const connectorName = connectorNameOf(assistant.metadata);
  const connector = registries.connectors.get(connectorName);
  if (!connector) throw new AppError('assistant_misconfigured', `The assistant uses connector "${connectorName}", which is not installed.`);
  return { contextTools: contextToolsOf(assistant, registries), promptProcessor, connector, model: assistant.metadata.llm ?? '' };
}
