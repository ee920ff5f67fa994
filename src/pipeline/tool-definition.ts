/**
 * The tool plugin contract (DESIGN §2). A tool is a context tool (runs before the model call and
 * fills its placeholder), a function tool (offered to the model, which calls it), or both. Each
 * file in src/tools/ default-exports one `defineTool({...})`.
 */
import type { AssistantSnapshot } from './assistant-snapshot.js';
import type { Source } from './events.js';
import type { ChatMessage } from './messages.js';
import type {
  AssistantRunner,
  CallStatus,
  FileReader,
  Integrations,
  KnowledgeSearch,
  QueryRewriter,
  Requester,
  RubricReader,
} from './ports.js';

export type ToolConfig = Record<string, unknown>;

/** What a tool may use while it runs; ports are bound to the assistant owner's identity. */
export interface ToolContext {
  assistant: AssistantSnapshot;
  messages: readonly ChatMessage[];
  /** Aborted when the tool times out or the client goes away. */
  signal: AbortSignal;
  files: FileReader;
  rubrics: RubricReader;
  knowledge: KnowledgeSearch;
  queryRewriter: QueryRewriter;
  requester: Requester;
  integrations: Integrations;
  assistants: AssistantRunner;
  /** Set while a function call runs: its status, for work nested under it. */
  callStatus?: CallStatus;
}

export interface ToolOutput {
  content: string;
  sources?: Source[];
  metadata?: Record<string, unknown>;
}

export interface FunctionDescription {
  name: string;
  description: string;
}

export interface FunctionToolDefinition<Config extends ToolConfig = ToolConfig> {
  /**
   * The name and description the model sees. May look things up; throwing an AppError means the
   * tool is not offered in this request, for the reason given (logged in the trace).
   */
  describe(config: Config, context: ToolContext): FunctionDescription | Promise<FunctionDescription>;
  /** The name `describe` would give, known without looking anything up: a model that calls a tool which was not offered is told why. */
  functionName?(config: Config): string;
  /** JSON Schema of the arguments the model supplies. */
  parameters: Record<string, unknown>;
  call(argumentsFromModel: Record<string, unknown>, context: ToolContext, config: Config): Promise<ToolOutput>;
}

export type ToolKind = 'context' | 'function' | 'context+function';

export interface ToolDefinition<Config extends ToolConfig = ToolConfig> {
  name: string;
  aliases?: readonly string[];
  displayName: string;
  description: string;
  category: string;
  version: string;
  /** JSON Schema of the per-assistant config; defaults in it are applied before the tool runs. */
  configSchema: Record<string, unknown>;
  /** Whether the tool can serve this request at all (for example, is Moodle configured?). */
  enabled?(context: ToolContext): boolean;
  /** Context tools: the placeholder they fill, without braces. */
  placeholder?: string;
  provide?(context: ToolContext, config: Config): Promise<ToolOutput>;
  /** A status line naming what the tool works on, from safe identifiers in its config. */
  status?(config: Config): string;
  /** The config fields a trace may record (identifiers, never secrets or contents). */
  traceInput?(config: Config): Record<string, unknown>;
  function?: FunctionToolDefinition<Config>;
}

export function defineTool<Config extends ToolConfig>(definition: ToolDefinition<Config>): ToolDefinition<Config> {
  return definition;
}

export function toolKind(definition: ToolDefinition): ToolKind {
  if (definition.provide && definition.function) return 'context+function';
  return definition.provide ? 'context' : 'function';
}
