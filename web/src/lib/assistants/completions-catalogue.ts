/**
 * What the assistant form offers to choose from, as the server lists it: prompt processors and
 * installed tools (GET /lamb/v1/completions/list; the Model field reads GET /api/models instead,
 * model-list.ts). Loaded once per page load, since several parts of the form read it.
 */
import { readCompletionsList } from '$lib/api/completions';

export type ToolKind = 'context' | 'function' | 'context+function';

export interface CatalogueTool {
  name: string;
  display_name: string;
  description: string;
  placeholder: string | null;
  kind: ToolKind;
}

export interface CompletionsCatalogue {
  prompt_processors: string[];
  tools: CatalogueTool[];
}

let loading: Promise<CompletionsCatalogue> | undefined;

export function loadCompletionsCatalogue(): Promise<CompletionsCatalogue> {
  loading ??= readCompletionsList().catch((error: unknown) => {
    loading = undefined;
    throw error;
  });
  return loading;
}

/** Tools that can fill {context}: a classic rag_processor can never be a function-only tool. */
export function contextTools(catalogue: CompletionsCatalogue): CatalogueTool[] {
  return catalogue.tools.filter((tool) => tool.kind !== 'function');
}
