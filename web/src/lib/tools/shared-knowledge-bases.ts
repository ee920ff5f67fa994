/**
 * The knowledge bases an assistant's tools share. A teacher ticks a knowledge base once, and
 * every tool that searches knowledge bases (a `collections` field in its config) uses the same
 * ones, unless the teacher chooses for that tool. The stored shape does not change: each tool
 * keeps its own `config.collections`, as LAMB exports and imports it; sharing is how the form
 * fills them. Opening an assistant, the first knowledge-base tool's list is the shared one, and a
 * tool whose list differs keeps its own choice.
 */
import type { ToolEntry } from '$lib/api/assistant-types';
import { findTool, type CatalogueTool } from './tool-catalogue';

/** Whether the entry's tool takes knowledge bases (a `collections` property in its config schema). */
export function takesKnowledgeBases(catalogue: readonly CatalogueTool[], entry: ToolEntry): boolean {
  const properties = findTool(catalogue, entry.type)?.config_schema['properties'];
  return typeof properties === 'object' && properties !== null && 'collections' in properties;
}

export function collectionsOf(entry: ToolEntry): string[] {
  const value = entry.config['collections'];
  return Array.isArray(value) ? value.map(String) : [];
}

function sameSet(first: readonly string[], second: readonly string[]): boolean {
  return first.length === second.length && first.every((item) => second.includes(item));
}

/** How the tools manager tells a card whether its tool uses the shared knowledge bases (undefined: it takes none), and switches it. */
export interface KnowledgeBaseSharing {
  of: (entry: ToolEntry) => boolean | undefined;
  set: (entry: ToolEntry, sharing: boolean) => void;
}

export interface Sharing {
  shared: string[];
  /** The knowledge-base tools that keep a choice of their own. */
  ownChoice: ToolEntry[];
}

/** The sharing an opened assistant has: the first knowledge-base tool's list, and the tools that differ from it. */
export function sharingOf(catalogue: readonly CatalogueTool[], tools: readonly ToolEntry[]): Sharing {
  const knowledgeTools = tools.filter((entry) => takesKnowledgeBases(catalogue, entry));
  const first = knowledgeTools[0];
  const shared = first === undefined ? [] : collectionsOf(first);
  return { shared, ownChoice: knowledgeTools.filter((entry) => !sameSet(collectionsOf(entry), shared)) };
}

/** Gives every sharing knowledge-base tool the shared list; returns whether anything changed. */
export function applySharing(options: {
  catalogue: readonly CatalogueTool[];
  tools: readonly ToolEntry[];
  shared: readonly string[];
  ownChoice: ReadonlySet<ToolEntry>;
}): boolean {
  let changed = false;
  for (const entry of options.tools) {
    if (options.ownChoice.has(entry) || !takesKnowledgeBases(options.catalogue, entry)) continue;
    if (sameSet(collectionsOf(entry), options.shared)) continue;
    entry.config['collections'] = [...options.shared];
    changed = true;
  }
  return changed;
}
