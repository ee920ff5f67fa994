/**
 * Checks normalized assistant metadata against the installed plugins, so an assistant is never
 * saved with a tool, prompt processor or connector this server does not have, nor with a tool
 * config its tool would refuse. Pure over (metadata, registries): the assistant services run it
 * after the normalizer on every write (create, update with metadata, import, conversion).
 *
 * What is checked, each problem with the full path a client wrote:
 * - every entry of `tools` (disabled ones too: a teacher may enable them later) names an installed
 *   tool by name or alias, and its config minus `placeholder` (LAMB's routing key, not tool
 *   config) passes the tool's config schema;
 * - a classic assistant's non-empty `rag_processor` is an installed tool that runs before the
 *   model (a context tool): a function-only tool has nothing to run there;
 * - `prompt_processor` and `connector`, when present, are installed.
 */
import { AppError } from '../errors/app-error.js';
import type { Registries } from '../pipeline/plugin-loading/registries.js';
import { checkToolConfig } from '../pipeline/plugin-contract/tool-config-validation.js';
import type { FieldProblem } from '../validation/json-schema-problems.js';
import { assistantTypeOf, type AssistantMetadata, type ToolEntry } from '../pipeline/assistant-metadata/metadata-normalizer.js';

/** LAMB's multi-tool entries choose their placeholder in config; it routes output and is not tool config. */
const PLACEHOLDER_KEY = 'placeholder';

/** Every problem the metadata has against the registries, in the order they appear in it; empty when it fits. */
export function findRegistryProblems(metadata: AssistantMetadata, registries: Registries): FieldProblem[] {
  const problems: FieldProblem[] = [];
  (metadata.tools ?? []).forEach((entry, index) => problems.push(...toolEntryProblems(entry, index, registries)));
  if (assistantTypeOf(metadata) === 'classic' && typeof metadata.rag_processor === 'string' && metadata.rag_processor !== '') {
    const definition = registries.tools.get(metadata.rag_processor);
    if (!definition) {
      problems.push({
        path: 'metadata.rag_processor',
        message: unknownToolMessage('metadata.rag_processor', metadata.rag_processor, registries),
      });
    } else if (definition.provide === undefined) {
      problems.push({ path: 'metadata.rag_processor', message: functionOnlyMessage(definition.name, registries) });
    }
  }
  if (typeof metadata.prompt_processor === 'string' && !registries.promptProcessors.has(metadata.prompt_processor)) {
    problems.push({
      path: 'metadata.prompt_processor',
      message: unknownPluginMessage('metadata.prompt_processor', 'prompt processor', metadata.prompt_processor, [
        ...registries.promptProcessors.keys(),
      ]),
    });
  }
  if (typeof metadata.connector === 'string' && !registries.connectors.has(metadata.connector)) {
    problems.push({
      path: 'metadata.connector',
      message: unknownPluginMessage('metadata.connector', 'connector', metadata.connector, [...registries.connectors.keys()]),
    });
  }
  return problems;
}

/**
 * Throws 400 `invalid_metadata` (param: the first problem's path, details.errors: every problem)
 * unless the metadata fits the registries; returns it with every tool named canonically, so an
 * alias a plugin declares is stored under the tool's own name. Never mutates its input.
 */
export function requireInstalledPlugins(metadata: AssistantMetadata, registries: Registries): AssistantMetadata {
  const problems = findRegistryProblems(metadata, registries);
  const first = problems[0];
  if (first) throw new AppError('invalid_metadata', first.message, { param: first.path, details: { errors: problems } });
  const result: AssistantMetadata = { ...metadata };
  if (metadata.tools) {
    result.tools = metadata.tools.map((entry) => ({ ...entry, type: registries.tools.get(entry.type)?.name ?? entry.type }));
  }
  if (assistantTypeOf(metadata) === 'classic' && typeof metadata.rag_processor === 'string' && metadata.rag_processor !== '') {
    result.rag_processor = registries.tools.get(metadata.rag_processor)?.name ?? metadata.rag_processor;
  }
  return result;
}

function toolEntryProblems(entry: ToolEntry, index: number, registries: Registries): FieldProblem[] {
  const entryPath = `metadata.tools[${index}]`;
  const definition = registries.tools.get(entry.type);
  if (!definition) return [{ path: `${entryPath}.type`, message: unknownToolMessage(`${entryPath}.type`, entry.type, registries) }];
  const configPath = `${entryPath}.config`;
  const { [PLACEHOLDER_KEY]: placeholder, ...config } = entry.config;
  const problems: FieldProblem[] = [];
  if (placeholder !== undefined && (typeof placeholder !== 'string' || placeholder === '')) {
    problems.push({
      path: `${configPath}.${PLACEHOLDER_KEY}`,
      message: `${configPath}.${PLACEHOLDER_KEY} must be a non-empty string (the placeholder the tool fills).`,
    });
  }
  const check = checkToolConfig(definition, config);
  if (!check.valid) {
    for (const problem of check.errors) problems.push(withFullPath(problem, configPath, definition.name));
  }
  return problems;
}

/** `{path: 'max_chars', message: '"max_chars" must be >= 1'}` → full paths, naming the tool. */
function withFullPath(problem: FieldProblem, configPath: string, toolName: string): FieldProblem {
  const isRoot = problem.path === '(config)';
  const path = isRoot ? configPath : problem.path.startsWith('[') ? `${configPath}${problem.path}` : `${configPath}.${problem.path}`;
  const quoted = `"${problem.path}"`;
  const rest = problem.message.startsWith(quoted) ? problem.message.slice(quoted.length) : ` is invalid: ${problem.message}`;
  return { path, message: `${path}${rest} (config of tool ${toolName}).` };
}

function unknownToolMessage(path: string, name: string, registries: Registries): string {
  const installed = registries.tools.list().map((definition) => {
    const aliases = registries.tools.aliasesOf(definition.name);
    return aliases.length > 0 ? `${definition.name} (alias ${aliases.join(', ')})` : definition.name;
  });
  return `${path} names the tool ${JSON.stringify(name)}, which is not installed on this server. Installed tools: ${listOrNone(installed)}.`;
}

function functionOnlyMessage(toolName: string, registries: Registries): string {
  const contextTools = registries.tools
    .list()
    .filter((definition) => definition.provide !== undefined)
    .map((definition) => definition.name);
  return `metadata.rag_processor names the tool ${JSON.stringify(toolName)}, which the model calls as a function and cannot fill {context}; list it in metadata.tools instead. Tools that can be a rag_processor: ${listOrNone(contextTools)}.`;
}

function unknownPluginMessage(path: string, kind: string, name: string, installed: string[]): string {
  return `${path} names the ${kind} ${JSON.stringify(name)}, which is not installed on this server. Installed ${kind}s: ${listOrNone([...installed].sort())}.`;
}

function listOrNone(names: string[]): string {
  return names.length > 0 ? names.join(', ') : 'none';
}
