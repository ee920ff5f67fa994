/**
 * The tool plugin contract (DESIGN §2). A tool is a context tool (runs before the model call and
 * fills its placeholder), a function tool (offered to the model, which calls it), or both. Each
 * file in src/tools/ default-exports one `defineTool({...})`.
 *
 * A tool writes its config schema and its parameters schema `as const`, and `defineTool` gives
 * `config` and the model's arguments the types those schemas describe: the schema is the one
 * statement of each shape, checked at run time (config before the tool runs, arguments by the
 * tool loop) and at compile time alike.
 */
import type { FromSchema, JSONSchema } from 'json-schema-to-ts';
import type { AssistantSnapshot } from '../assistant-metadata/assistant-snapshot.js';
import type { Source } from '../conversation/events.js';
import type { ChatMessage } from '../conversation/messages.js';
import type {
  AssistantRunner,
  CallStatus,
  FileReader,
  Integrations,
  KnowledgeSearch,
  McpServers,
  QueryRewriter,
  Requester,
  RubricReader,
  ToolModels,
} from './ports.js';

/** A config as the core handles it, whichever tool it belongs to. */
export type ToolConfig = Record<string, unknown>;
/** A model's arguments as the core handles them, whichever function they are for. */
export type ToolArguments = Record<string, unknown>;

/** A JSON Schema of an object (a config, a function's parameters). */
export type ToolSchema = Exclude<JSONSchema, boolean>;

/**
 * What a schema describes: exactly its own shape for a schema written `as const`; any record for
 * one whose shape the compiler cannot read (not `as const`, or no schema at all).
 */
export type SchemaValue<Schema extends ToolSchema> = [ToolSchema] extends [Schema]
  ? Record<string, unknown>
  : FromSchema<Schema> extends infer Value
    ? [Value] extends [never]
      ? Record<string, unknown>
      : Value
    : never;

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
  mcpServers: McpServers;
  /** Models a tool may call beside the run's own (deep_analysis): the small fast model and the assistant's. */
  models: ToolModels;
  /** Set while a function call runs: which of the functions a several-function entry offered is called (its `variant`). */
  variant?: string;
  /** Set while a function call runs: its status, for work nested under it. */
  callStatus?: CallStatus;
}

export interface ToolOutput {
  content: string;
  sources?: Source[];
  /**
   * The content with its sources numbered from `firstNumber` (`[firstNumber]`, …), for a function
   * call: the tool loop gives each call the number its first source has among the answer's
   * sources, so citations run on across calls instead of restarting at [1]. `content` is used
   * when this is absent.
   */
  numberedContent?: (firstNumber: number) => string;
  metadata?: Record<string, unknown>;
}

export interface FunctionDescription {
  name: string;
  description: string;
  /** For an entry offering several functions: this one's parameters, in place of the definition's `parameters`. */
  parameters?: ToolSchema;
  /** For an entry offering several functions: which one this is, handed to `call` as `context.variant`. */
  variant?: string;
  /** Set when this function is configured but cannot be offered: why (the trace keeps it; a model that calls it is told). */
  unavailable?: string;
}

export interface FunctionToolDefinition<Config = ToolConfig, Arguments = ToolArguments> {
  /**
   * The name and description the model sees. May look things up; throwing an AppError means the
   * tool is not offered in this request, for the reason given (logged in the trace).
   */
  describe(config: Config, context: ToolContext): FunctionDescription | Promise<FunctionDescription>;
  /**
   * For an entry that offers several functions (an MCP server's chosen tools): all of them, each
   * with its own `parameters` and `variant`; used in place of `describe` when present. Throwing
   * an AppError means none is offered, for the reason given.
   */
  describeAll?(config: Config, context: ToolContext): Promise<readonly FunctionDescription[]>;
  /** The name `describe` would give, known without looking anything up: a model that calls a tool which was not offered is told why. */
  functionName?(config: Config): string;
  /** JSON Schema of the arguments the model supplies; the tool loop checks them against it (defaults applied) before `call`. */
  parameters: ToolSchema;
  call(argumentsFromModel: Arguments, context: ToolContext, config: Config): Promise<ToolOutput>;
}

export type ToolKind = 'context' | 'function' | 'context+function';

export interface ToolDefinition<Config = ToolConfig, Arguments = ToolArguments> {
  name: string;
  aliases?: readonly string[];
  displayName: string;
  description: string;
  category: string;
  version: string;
  /** JSON Schema of the per-assistant config; defaults in it are applied before the tool runs. */
  configSchema: ToolSchema;
  /** Whether the tool can serve this request at all (for example, is Moodle configured?). */
  enabled?(context: ToolContext): boolean;
  /** Context tools: the placeholder they fill, without braces. */
  placeholder?: string;
  provide?(context: ToolContext, config: Config): Promise<ToolOutput>;
  /** A status line naming what the tool works on, from safe identifiers in its config. */
  status?(config: Config): string;
  /** The config fields a trace may record (identifiers, never secrets or contents). */
  traceInput?(config: Config): Record<string, unknown>;
  function?: FunctionToolDefinition<Config, Arguments>;
}

/** A tool as its file writes it: its schemas, and code typed by what they describe. */
export type TypedToolDefinition<ConfigSchema extends ToolSchema, ParametersSchema extends ToolSchema> = ToolDefinition<
  SchemaValue<ConfigSchema>,
  SchemaValue<ParametersSchema>
> & {
  configSchema: ConfigSchema;
  function?: { parameters: ParametersSchema };
};

/**
 * Types a tool from its schemas and hands it to the core as any tool: the registry and the core
 * see configs and arguments as records, and check them against the schemas before the tool runs.
 */
export function defineTool<ConfigSchema extends ToolSchema, ParametersSchema extends ToolSchema = ToolSchema>(
  definition: TypedToolDefinition<ConfigSchema, ParametersSchema>,
): ToolDefinition {
  // Sound because the core calls a tool only with a config and arguments its schemas accepted; the
  // compiler cannot see that link between a schema and a value, so the widening is written out.
  return definition as unknown as ToolDefinition;
}

export function toolKind(definition: ToolDefinition): ToolKind {
  if (definition.provide && definition.function) return 'context+function';
  return definition.provide ? 'context' : 'function';
}
