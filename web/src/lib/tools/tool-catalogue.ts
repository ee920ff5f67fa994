/**
 * The installed tools as GET /lamb/v1/completions/tools lists them, and the live check of one
 * tool's config (POST /lamb/v1/completions/tools/{name}/validate) the tool cards run as the
 * teacher types. `placeholder` in an entry's config is LAMB's routing key, not tool config, so it
 * is left out of the check, as the server leaves it out when it saves.
 */
import { checkToolConfigOf, listInstalledTools } from '$lib/api/completions';
import { toolLabel } from '$lib/i18n/plain-names';
import type { JsonSchema } from './schema-form';

export interface CatalogueTool {
  name: string;
  display_name: string;
  description: string;
  /** The placeholder a context tool fills by default; null for a function tool. */
  placeholder: string | null;
  category: string;
  version: string;
  kind: 'context' | 'function' | 'context+function';
  aliases: string[];
  config_schema: JsonSchema;
}

export interface ConfigProblem {
  /** Below the config (`top_k`), or `(config)` for the whole of it. */
  path: string;
  message: string;
}

/** The installed tools do not change while the server runs: one request serves every part of the form. */
let loaded: Promise<CatalogueTool[]> | undefined;

export async function loadToolCatalogue(): Promise<CatalogueTool[]> {
  loaded ??= listInstalledTools()
    // Shown by its plain label ("Knowledge base passages", not "Knowledge Base RAG").
    .then((tools) => tools.map((tool) => ({ ...tool, display_name: toolLabel(tool.name, tool.display_name) })))
    .catch((error: unknown) => {
      // A failed load is not kept: the next form to ask tries again.
      loaded = undefined;
      throw error;
    });
  return loaded;
}

/** The catalogue entry for an entry's type, which may be a tool's name or one of its aliases. */
export function findTool(catalogue: readonly CatalogueTool[], type: string): CatalogueTool | undefined {
  return catalogue.find((tool) => tool.name === type || tool.aliases.includes(type));
}

/** Whether the tool fills a placeholder (a context tool, or one that is both). */
export function isContextTool(tool: CatalogueTool): boolean {
  return tool.kind !== 'function';
}

export async function checkToolConfig(name: string, config: Record<string, unknown>): Promise<ConfigProblem[]> {
  const { placeholder: _routingKey, ...toolConfig } = config;
  return (await checkToolConfigOf(name, toolConfig)).errors;
}
