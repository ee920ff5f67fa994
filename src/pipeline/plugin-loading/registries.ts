/**
 * The three plugin registries (tools, prompt processors, connectors), loaded once at start-up
 * from src/tools/, src/prompt-processors/ and src/connectors/ (or their compiled twins in dist/),
 * then from the same three folders of the installation's PLUGINS_DIR (docs/plugins.md).
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { canonicalToolType, TOOL_TYPE_ALIASES } from '../assistant-metadata/metadata-normalizer.js';
import type { ConnectorDefinition } from '../plugin-contract/connector-definition.js';
import { discoverPlugins, requireFunction, requireObject, requireText, type RegistryLog } from './plugin-discovery.js';
import type { PromptProcessorDefinition } from '../plugin-contract/prompt-processor-definition.js';
import { compileConfigSchema } from '../plugin-contract/tool-config-validation.js';
import type { ToolDefinition } from '../plugin-contract/tool-definition.js';

const PLUGIN_NAME = /^[a-z][a-z0-9_-]*$/;
const PLACEHOLDER_NAME = /^[a-z][a-z0-9_]*$/;

export class ToolRegistry {
  private readonly byName = new Map<string, ToolDefinition>();
  private readonly aliases = new Map<string, string>();
  private declaredPlaceholders: ReadonlySet<string> | undefined;

  constructor(definitions: readonly ToolDefinition[]) {
    for (const definition of definitions) {
      this.byName.set(definition.name, definition);
      for (const alias of definition.aliases ?? []) this.aliases.set(alias, definition.name);
    }
  }

  /** Finds a tool by its name or any alias (the normalizer's and the tool's own). */
  get(nameOrAlias: string): ToolDefinition | undefined {
    const canonical = canonicalToolType(nameOrAlias);
    return this.byName.get(canonical) ?? this.byName.get(this.aliases.get(nameOrAlias) ?? '');
  }

  list(): ToolDefinition[] {
    return [...this.byName.values()].sort((a, b) => a.name.localeCompare(b.name));
  }

  /** Every alias that resolves to `name`, from the normalizer's table and the tool itself. */
  aliasesOf(name: string): string[] {
    const fromNormalizer = Object.entries(TOOL_TYPE_ALIASES)
      .filter(([, target]) => target === name)
      .map(([alias]) => alias);
    return [...new Set([...fromNormalizer, ...(this.byName.get(name)?.aliases ?? [])])].sort();
  }

  /** The placeholders tools declare: the only ones prompt processors substitute besides user_input. */
  placeholders(): ReadonlySet<string> {
    // Asked for on every run; the tools are fixed once loaded.
    this.declaredPlaceholders ??= new Set(
      [...this.byName.values()].flatMap((definition) => (definition.placeholder ? [definition.placeholder] : [])),
    );
    return this.declaredPlaceholders;
  }
}

export interface Registries {
  tools: ToolRegistry;
  promptProcessors: ReadonlyMap<string, PromptProcessorDefinition>;
  connectors: ReadonlyMap<string, ConnectorDefinition>;
}

export function validateToolDefinition(value: unknown): ToolDefinition {
  const definition = requireObject(value, 'the default export');
  requireText(definition, 'name', PLUGIN_NAME);
  for (const field of ['displayName', 'description', 'category', 'version']) requireText(definition, field);
  requireObject(definition.configSchema, '"configSchema"');
  try {
    compileConfigSchema(definition.configSchema as Record<string, unknown>);
  } catch (error) {
    throw new Error(`"configSchema" is not valid JSON Schema: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
  if (
    definition.aliases !== undefined &&
    !(Array.isArray(definition.aliases) && definition.aliases.every((alias) => typeof alias === 'string'))
  ) {
    throw new Error('"aliases" must be a list of names');
  }
  for (const field of ['enabled', 'provide', 'status', 'traceInput']) requireFunction(definition, field, true);
  if (definition.provide === undefined && definition.function === undefined) {
    throw new Error('a tool needs "provide" (context tool), "function" (function tool), or both');
  }
  if (definition.provide !== undefined) requireText(definition, 'placeholder', PLACEHOLDER_NAME);
  if (definition.function !== undefined) {
    const functionTool = requireObject(definition.function, '"function"');
    requireFunction(functionTool, 'describe');
    requireFunction(functionTool, 'call');
    requireObject(functionTool.parameters, '"function.parameters"');
  }
  return definition as unknown as ToolDefinition;
}

/** Prompt processors and connectors: a name, a description and the functions they must provide. */
function validateNamedPlugin(value: unknown, functions: readonly string[]): Record<string, unknown> {
  const definition = requireObject(value, 'the default export');
  requireText(definition, 'name', PLUGIN_NAME);
  requireText(definition, 'description');
  for (const field of functions) requireFunction(definition, field);
  return definition;
}

export function validatePromptProcessorDefinition(value: unknown): PromptProcessorDefinition {
  return validateNamedPlugin(value, ['process']) as unknown as PromptProcessorDefinition;
}

export function validateConnectorDefinition(value: unknown): ConnectorDefinition {
  return validateNamedPlugin(value, ['models', 'complete']) as unknown as ConnectorDefinition;
}

export interface PluginDirectories {
  tools: string;
  promptProcessors: string;
  connectors: string;
}

/** The plugin folders at the top of src/ under tsx and vitest, of dist/ when compiled (two levels above this file). */
export const DEFAULT_PLUGIN_DIRECTORIES: PluginDirectories = {
  tools: fileURLToPath(new URL('../../tools/', import.meta.url)),
  promptProcessors: fileURLToPath(new URL('../../prompt-processors/', import.meta.url)),
  connectors: fileURLToPath(new URL('../../connectors/', import.meta.url)),
};

/** The three folders of an installation's plugin folder (PLUGINS_DIR). */
export function installedPluginDirectories(pluginsDirectory: string): PluginDirectories {
  return {
    tools: path.join(pluginsDirectory, 'tools'),
    promptProcessors: path.join(pluginsDirectory, 'prompt-processors'),
    connectors: path.join(pluginsDirectory, 'connectors'),
  };
}

interface LoadOptions<Definition extends { name: string }> {
  kind: string;
  validate: (value: unknown) => Definition;
  builtIn: string;
  installed: string | undefined;
  log: RegistryLog;
}

/** The built-in plugins of one kind, then the installed ones, which may add names but never take a built-in one. */
async function loadKind<Definition extends { name: string }>(options: LoadOptions<Definition>): Promise<Definition[]> {
  const { kind, validate, log } = options;
  const builtIn = await discoverPlugins({ directory: options.builtIn, kind, validate, log });
  if (options.installed === undefined) return builtIn;
  const reserved = new Set(builtIn.map((definition) => definition.name));
  const installed = await discoverPlugins({ directory: options.installed, kind, validate, log, installed: true, reserved });
  return [...builtIn, ...installed];
}

/**
 * Loads every plugin. `pluginsDirectory` is the installation's PLUGINS_DIR; its plugins import the
 * plugin API as `merino/plugin-api`, which discovery makes resolvable before it loads the first of them
 * (see plugin-api-specifier.ts).
 */
export async function loadRegistries(
  log: RegistryLog,
  directories: PluginDirectories = DEFAULT_PLUGIN_DIRECTORIES,
  pluginsDirectory?: string,
): Promise<Registries> {
  const installed = pluginsDirectory === undefined ? undefined : installedPluginDirectories(pluginsDirectory);
  const [tools, promptProcessors, connectors] = await Promise.all([
    loadKind({ kind: 'tool', validate: validateToolDefinition, builtIn: directories.tools, installed: installed?.tools, log }),
    loadKind({
      kind: 'prompt processor',
      validate: validatePromptProcessorDefinition,
      builtIn: directories.promptProcessors,
      installed: installed?.promptProcessors,
      log,
    }),
    loadKind({
      kind: 'connector',
      validate: validateConnectorDefinition,
      builtIn: directories.connectors,
      installed: installed?.connectors,
      log,
    }),
  ]);
  return {
    tools: new ToolRegistry(tools),
    promptProcessors: new Map(promptProcessors.map((definition) => [definition.name, definition])),
    connectors: new Map(connectors.map((definition) => [definition.name, definition])),
  };
}
