/**
 * Classic → multi-tool conversion (DESIGN §1: explicit, user-started, with a dry run). Pure: from a
 * classic assistant, the metadata of an equivalent multi-tool assistant by seed 001's mapping
 * (§6.2, §10.5), and 001 §10.7's log line. The tool's config is read from the legacy fields by the
 * very function that configures it when the classic assistant runs (assistant-plan.ts), so a
 * converted assistant retrieves what the classic one did. Two deliberate departures from 001, both
 * so the converted assistant answers as the classic one did: tool names stay canonical (DESIGN §1:
 * `rubric_rag`, not 001's `rubric`), and a tool whose own placeholder is not `{context}` is routed
 * to `{context}` (config `placeholder`), because a classic template reads every tool's output there.
 */
import { classicToolConfig } from './assistant-plan.js';
import type { AssistantSnapshot } from './assistant-metadata/assistant-snapshot.js';
import { AppError } from '../errors/app-error.js';
import {
  assistantTypeOf,
  CURRENT_FORMAT_VERSION,
  type AssistantMetadata,
  type ToolEntry,
} from './assistant-metadata/metadata-normalizer.js';
import { CLASSIC_DEFAULT_TEMPLATE, CONTEXT_PLACEHOLDER } from './templates/template-rendering.js';

/** What the conversion needs to know of an installed tool. */
export interface ConvertibleTool {
  name: string;
  /** The placeholder it fills by default; undefined for a tool the model calls as a function only. */
  placeholder: string | undefined;
  runsBeforehand: boolean;
}

export interface ClassicConversion {
  metadata: AssistantMetadata;
  /** The template the new assistant gets: the classic one, or LAMB's default when the classic one relied on it. */
  promptTemplate: string;
  /** 001 §10.7's log line, with both metadata objects. */
  log: string;
}

/** Keys 001 §10.5 removes from metadata: their meaning moves into `tools`. */
const LEGACY_KEYS = ['rag_processor', 'rubric_id', 'rubric_format', 'file_path'] as const;
const NO_TOOL = 'no_rag';
const CLASSIC_PROMPT_PROCESSOR = 'simple_augment';
const MULTI_TOOL_PROMPT_PROCESSOR = 'multi_augment';
const CLASSIC_FORMAT_VERSION = 1;

function notConvertible(message: string): AppError {
  return new AppError('assistant_not_convertible', message);
}

function toolEntryOf(assistant: AssistantSnapshot, findTool: (name: string) => ConvertibleTool | undefined): ToolEntry | undefined {
  const ragProcessor = assistant.metadata.rag_processor ?? '';
  if (ragProcessor === '' || ragProcessor === NO_TOOL) return undefined;
  const tool = findTool(ragProcessor);
  if (tool === undefined) {
    throw notConvertible(
      `Assistant ${assistant.id} uses the rag processor "${ragProcessor}", which is not installed on this server, so there is no tool to convert it to.`,
    );
  }
  if (tool.name === NO_TOOL) return undefined;
  if (!tool.runsBeforehand) {
    throw notConvertible(
      `Assistant ${assistant.id} uses the rag processor "${tool.name}", which the model calls as a function and which never ran as this classic assistant's rag processor; remove it before converting.`,
    );
  }
  const config = { ...classicToolConfig(tool.name, assistant) };
  if (tool.placeholder !== CONTEXT_PLACEHOLDER) config.placeholder = CONTEXT_PLACEHOLDER;
  return { type: tool.name, enabled: true, config };
}

/**
 * Converts a classic assistant, or throws 409 `assistant_not_convertible` naming why: it is
 * multi-tool already, or its rag processor is not a tool this server could run before the model.
 */
export function convertClassicAssistant(
  assistant: AssistantSnapshot,
  findTool: (name: string) => ConvertibleTool | undefined,
  ownerEmail: string,
): ClassicConversion {
  if (assistantTypeOf(assistant.metadata) !== 'classic') {
    throw notConvertible(`Assistant ${assistant.id} is a multi-tool assistant already; only classic assistants can be converted.`);
  }
  const tool = toolEntryOf(assistant, findTool);
  const metadata: AssistantMetadata = { ...assistant.metadata, _format_version: CURRENT_FORMAT_VERSION, assistant_type: 'multi_tool' };
  for (const key of LEGACY_KEYS) Reflect.deleteProperty(metadata, key);
  metadata.tools = tool === undefined ? [] : [tool];
  // simple_augment fills {context} only; multi_augment fills it the same way and every other tool placeholder too.
  const processor = assistant.metadata.prompt_processor ?? CLASSIC_PROMPT_PROCESSOR;
  metadata.prompt_processor = processor === CLASSIC_PROMPT_PROCESSOR ? MULTI_TOOL_PROMPT_PROCESSOR : processor;
  // Without a template a classic assistant with a tool used LAMB's default; multi_augment's own differs.
  const promptTemplate = assistant.promptTemplate === '' && tool !== undefined ? CLASSIC_DEFAULT_TEMPLATE : assistant.promptTemplate;
  return { metadata, promptTemplate, log: conversionLog(assistant, ownerEmail, metadata) };
}

/** 001 §10.7, word for word in its layout; the classic metadata is v1 whatever version it was stored as. */
function conversionLog(assistant: AssistantSnapshot, ownerEmail: string, newMetadata: AssistantMetadata): string {
  const { _format_version: _storedVersion, ...oldMetadata } = assistant.metadata;
  return [
    `INFO lamb.migration: Migrated assistant ${assistant.id} from v${CLASSIC_FORMAT_VERSION} to v${CURRENT_FORMAT_VERSION}`,
    `  assistant_id: ${assistant.id}`,
    `  assistant_name: ${JSON.stringify(assistant.name)}`,
    `  owner: ${JSON.stringify(ownerEmail)}`,
    `  old_metadata: ${JSON.stringify(oldMetadata)}`,
    `  new_metadata: ${JSON.stringify(newMetadata)}`,
    `  from_version: ${CLASSIC_FORMAT_VERSION}`,
    `  to_version: ${CURRENT_FORMAT_VERSION}`,
  ].join('\n');
}
