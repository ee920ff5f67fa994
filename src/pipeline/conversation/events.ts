/**
 * The typed events a pipeline run produces. The HTTP edge renders them as OpenAI JSON or SSE
 * (DESIGN §4); the core never formats wire output itself.
 */

export type StatusState = 'running' | 'done' | 'error';

export interface StatusEvent {
  id: string;
  tool: string;
  state: StatusState;
  /** Safe identifiers only: never contents, user text or secrets. */
  message: string;
  /** The status this one is nested under (a target assistant's steps under its call). */
  parent?: string;
  /** The tool's display name from the tool registry, when the tool is installed; clients show it before `tool`. */
  display_name?: string;
}

export interface Source {
  title: string;
  url?: string;
  similarity?: number;
  document_id?: string;
  chunk_index?: number;
  page?: number;
  /** The heading of the section the passage is under, when its document has headings. */
  section?: string;
  /** The knowledge base (or a knowledge server's collection) the document is in. */
  knowledge_base_id?: string;
  /** The passage the answer was given, so a reader can see what it said. */
  text?: string;
  /**
   * What the model was told to follow (a rubric), not where the answer came from: the prompt
   * processor may still list it for the model, but it is never sent or stored as a source.
   */
  instruction?: boolean;
  /** The tool that produced it, and the placeholder its output filled. */
  tool?: string;
  placeholder?: string;
  /** The tool's function the model called, when a function call found it (src/pipeline/tool-loop/tool-loop.ts). */
  function?: string;
  /** The assistant called as a tool whose answer brought it (src/completions/assistant-tool-runner.ts). */
  assistant_id?: number;
  assistant?: string;
  [key: string]: unknown;
}

export interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
}

export type FinishReason = 'stop' | 'length' | 'tool_calls' | 'content_filter';

export type PipelineEvent =
  | { type: 'status'; status: StatusEvent }
  | { type: 'text-delta'; text: string }
  | { type: 'reasoning-delta'; text: string }
  | { type: 'sources'; sources: Source[] }
  | { type: 'usage'; usage: Usage }
  | { type: 'finish'; finishReason: FinishReason };

/** The sources a reader is shown: everything but instructions. */
export function listedSources(sources: readonly Source[]): Source[] {
  return sources.filter((source) => source.instruction !== true);
}

export function addUsage(total: Usage, more: Usage): Usage {
  return {
    prompt_tokens: total.prompt_tokens + more.prompt_tokens,
    completion_tokens: total.completion_tokens + more.completion_tokens,
    total_tokens: total.total_tokens + more.total_tokens,
  };
}

export const NO_USAGE: Usage = { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 };
