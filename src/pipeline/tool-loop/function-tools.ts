/**
 * Which functions an assistant offers its model: every enabled tool entry whose plugin has a
 * function side, with its config checked, offered only when the plugin says it can serve this
 * request (`enabled`), under a name that is valid for every provider and unique in the request.
 * Classic assistants list them LAMB's way (`tools: ["weather", "moodle"]`); both normalise to
 * the same entries.
 */
import { AppError } from '../../errors/app-error.js';
import { trimCharacters } from '../../text-trimming/trim-characters.js';
import type { AssistantSnapshot } from '../assistant-metadata/assistant-snapshot.js';
import type { FunctionSpecification } from '../plugin-contract/connector-definition.js';
import type { Registries } from '../plugin-loading/registries.js';
import { checkToolConfig } from '../plugin-contract/tool-config-validation.js';
import type { FunctionDescription, ToolConfig, ToolContext, ToolDefinition } from '../plugin-contract/tool-definition.js';

/** OpenAI's rule for function names, which the other providers accept too. */
const FUNCTION_NAME_CHARACTERS_MAXIMUM = 64;

export interface FunctionToolRun {
  /** The name the model sees and calls. */
  functionName: string;
  /** The plugin's name. */
  toolName: string;
  definition: ToolDefinition & { function: NonNullable<ToolDefinition['function']> };
  config: ToolConfig;
  specification: FunctionSpecification;
  /** What the call's status says while it runs: `calling <function>` unless the tool words it. */
  statusLabel: string;
  /** Which of an entry's several functions this is, handed to `call` as `context.variant`. */
  variant?: string;
}

/** A configured function tool that is not offered in this request, and why (for the log and trace). */
export interface SkippedFunctionTool {
  toolName: string;
  /** The name it would have had, so a model that calls it anyway hears why it cannot. */
  functionName?: string;
  reason: string;
}

export function sanitizeFunctionName(name: string): string {
  const cleaned = trimCharacters(name.replace(/[^A-Za-z0-9_-]+/g, '_'), '_');
  return (cleaned === '' ? 'tool' : cleaned).slice(0, FUNCTION_NAME_CHARACTERS_MAXIMUM);
}

function uniqueName(wanted: string, taken: Set<string>): string {
  let name = wanted;
  for (let suffix = 2; taken.has(name); suffix += 1)
    name = `${wanted.slice(0, FUNCTION_NAME_CHARACTERS_MAXIMUM - String(suffix).length - 1)}_${suffix}`;
  taken.add(name);
  return name;
}

function statusLabel(definition: ToolDefinition, config: ToolConfig, functionName: string): string {
  try {
    return definition.status?.(config) ?? `calling ${functionName}`;
  } catch {
    return `calling ${functionName}`;
  }
}

function isEnabledFor(definition: ToolDefinition, context: ToolContext): boolean {
  try {
    return definition.enabled?.(context) ?? true;
  } catch {
    return false;
  }
}

/** A safe reason a tool is not offered: our own error message, or only the kind of anything else. */
function refusalReason(error: unknown): string {
  return error instanceof AppError ? error.message : `failed (${error instanceof Error ? error.name : 'error'})`;
}

/** The entry's functions: several from `describeAll`, else the one `describe` gives. */
async function describedFunctions(
  definition: FunctionToolRun['definition'],
  config: ToolConfig,
  context: ToolContext,
): Promise<readonly FunctionDescription[]> {
  if (definition.function.describeAll !== undefined) return definition.function.describeAll(config, context);
  return [await definition.function.describe(config, context)];
}

function offeredFunction(offer: {
  definition: ToolDefinition;
  config: ToolConfig;
  description: FunctionDescription;
  taken: Set<string>;
}): FunctionToolRun {
  const { definition, config, description } = offer;
  const functionName = uniqueName(sanitizeFunctionName(description.name), offer.taken);
  const parameters = description.parameters ?? (definition.function as NonNullable<ToolDefinition['function']>).parameters;
  return {
    functionName,
    toolName: definition.name,
    definition: definition as FunctionToolRun['definition'],
    config,
    specification: { name: functionName, description: description.description, parameters },
    statusLabel: statusLabel(definition, config, functionName),
    ...(description.variant !== undefined && { variant: description.variant }),
  };
}

/** An assistant's functions for one request: those offered to the model, and those configured but not offered. */
export interface FunctionTools {
  offered: FunctionToolRun[];
  skipped: SkippedFunctionTool[];
}

export async function functionToolsOf(assistant: AssistantSnapshot, registries: Registries, context: ToolContext): Promise<FunctionTools> {
  const offered: FunctionToolRun[] = [];
  const skipped: SkippedFunctionTool[] = [];
  const taken = new Set<string>();
  for (const entry of assistant.metadata.tools ?? []) {
    if (!entry.enabled) continue;
    const definition = registries.tools.get(entry.type);
    if (definition?.function === undefined) continue;
    const check = checkToolConfig(definition, entry.config);
    if (!check.valid) {
      skipped.push({ toolName: definition.name, reason: `invalid config: ${check.errors.map((problem) => problem.message).join('; ')}` });
      continue;
    }
    let descriptions: readonly FunctionDescription[];
    try {
      descriptions = await describedFunctions(definition as FunctionToolRun['definition'], check.config, context);
    } catch (error) {
      const functionName = definition.function.functionName?.(check.config);
      skipped.push({
        toolName: definition.name,
        ...(functionName !== undefined && { functionName: sanitizeFunctionName(functionName) }),
        reason: refusalReason(error),
      });
      continue;
    }
    const enabled = isEnabledFor(definition, context);
    for (const description of descriptions) {
      const refusal = enabled ? description.unavailable : 'its service is not configured for this organization';
      if (refusal !== undefined) {
        skipped.push({ toolName: definition.name, functionName: sanitizeFunctionName(description.name), reason: refusal });
        continue;
      }
      offered.push(offeredFunction({ definition, config: check.config, description, taken }));
    }
  }
  return { offered, skipped };
}
