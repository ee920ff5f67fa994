/**
 * The one normalizer every write of assistant metadata goes through (DESIGN §1). It accepts the
 * metadata shapes of LAMB and of the seeds, validates them against metadata-schema.ts and returns
 * the canonical form: tools as `{type, enabled, config}` with canonical tool names, string rubric
 * ids, integer assistant ids and `_format_version: 2`. Unknown keys pass through untouched so LAMB
 * metadata and future keys survive a save.
 */

import { AppError } from '../../errors/app-error.js';
import { validateAssistantMetadata, type MetadataSchemaError } from './metadata-schema.js';

export const CURRENT_FORMAT_VERSION = 2;

export interface ToolEntry {
  type: string;
  enabled: boolean;
  config: Record<string, unknown>;
}

export interface AssistantCapabilities {
  vision?: boolean;
  image_generation?: boolean;
  [key: string]: unknown;
}

export interface AssistantMetadata {
  _format_version: typeof CURRENT_FORMAT_VERSION;
  assistant_type?: 'classic' | 'multi_tool';
  prompt_processor?: string;
  connector?: string;
  llm?: string;
  rag_processor?: string;
  file_path?: string;
  rubric_id?: string;
  rubric_format?: 'markdown' | 'json';
  capabilities?: AssistantCapabilities;
  verbose?: boolean;
  tools?: ToolEntry[];
  tool_call_format?: string;
  /** `auto` (the default), `always` or `never`: whether the chat template opens reasoning before the model writes. */
  reasoning_opened?: string;
  /** A client's system and developer messages: dropped (the default) or put after the teacher's system prompt. */
  client_system_messages?: 'drop' | 'append';
  /** Status lines written into the answer's content, for clients that show only content, unless a request says otherwise. */
  status_as_content?: boolean;
  tool_loop?: { max_iterations?: number; call_timeout_ms?: number; total_timeout_ms?: number; max_identical_calls?: number };
  [key: string]: unknown;
}

export type AssistantType = 'classic' | 'multi_tool';

/**
 * 001's tool names mapped to the canonical classic names (DESIGN §1). Kept a plain exported map
 * because the plugin registry adds the aliases its plugins declare.
 */
export const TOOL_TYPE_ALIASES: Record<string, string> = {
  rubric: 'rubric_rag',
  single_file: 'single_file_rag',
  no_tool: 'no_rag',
};

export function canonicalToolType(name: string): string {
  return Object.hasOwn(TOOL_TYPE_ALIASES, name) ? (TOOL_TYPE_ALIASES[name] as string) : name;
}

/** The tools that call another assistant: `assistant`, and `image_gen`, which calls an image assistant. */
const ASSISTANT_TOOL_TYPES: ReadonlySet<string> = new Set(['assistant', 'image_gen']);
const RUBRIC_TOOL_TYPE = 'rubric_rag';

interface FieldError {
  path: string;
  message: string;
}

// ---------------------------------------------------------------------------------------------
// Parsing
// ---------------------------------------------------------------------------------------------

/**
 * Reads metadata as clients and LAMB rows carry it: an object, a JSON string of an object, or
 * nothing at all. The result is always a fresh JSON copy, so callers may change it freely and the
 * stored form is exactly what JSON can represent.
 */
export function parseMetadataInput(value: unknown): Record<string, unknown> {
  if (value === undefined || value === null) return {};
  if (typeof value === 'string') return parseMetadataString(value);
  if (typeof value === 'object' && !Array.isArray(value)) return copyAsJson(value);
  throw invalidMetadata(`metadata must be a JSON object or a JSON string of one, not ${describeKind(value)}.`);
}

function parseMetadataString(text: string): Record<string, unknown> {
  if (text.trim() === '') return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw invalidMetadata(`metadata is a string but not valid JSON (${reason}).`);
  }
  if (!isPlainRecord(parsed)) {
    throw invalidMetadata(`metadata must be a JSON object, but the string holds ${describeKind(parsed)}.`);
  }
  return parsed;
}

function copyAsJson(value: object): Record<string, unknown> {
  let copy: unknown;
  try {
    copy = JSON.parse(JSON.stringify(value)) as unknown;
  } catch {
    throw invalidMetadata('metadata cannot be represented as JSON (it holds a cycle or a BigInt).');
  }
  // Objects with toJSON (a Date, say) serialise to something that is not an object.
  if (!isPlainRecord(copy)) {
    throw invalidMetadata(`metadata must be a JSON object, but it serialises to ${describeKind(copy)}.`);
  }
  return copy;
}

// ---------------------------------------------------------------------------------------------
// Normalising
// ---------------------------------------------------------------------------------------------

/** Parses, validates and canonicalises metadata. Idempotent; never mutates its input. */
export function normalizeMetadata(value: unknown): AssistantMetadata {
  const metadata = parseMetadataInput(value);
  assertMatchesSchema(metadata);
  const { _format_version: _ignoredVersion, ...rest } = metadata;
  const result: AssistantMetadata = { _format_version: CURRENT_FORMAT_VERSION, ...rest };
  if (typeof result.rag_processor === 'string') result.rag_processor = canonicalToolType(result.rag_processor);
  if (Number.isInteger(metadata.rubric_id)) result.rubric_id = String(metadata.rubric_id);
  if (Array.isArray(metadata.tools)) {
    result.tools = metadata.tools.map((entry: unknown, index: number) => normalizeToolEntry(entry, index));
  }
  return result;
}

/** Classic unless the metadata says exactly `multi_tool` (seed 000 §6.1). */
export function assistantTypeOf(metadata: Readonly<Record<string, unknown>> | null | undefined): AssistantType {
  return metadata?.assistant_type === 'multi_tool' ? 'multi_tool' : 'classic';
}

/**
 * Turns one schema-valid entry of any accepted shape into `{type, enabled, config}`. Keys an
 * object entry carries beside type/plugin/enabled/config move into config, and win over config's
 * own keys, as LAMB's `{...config, placeholder}` does.
 */
function normalizeToolEntry(entry: unknown, index: number): ToolEntry {
  if (typeof entry === 'string') return { type: canonicalToolType(entry), enabled: true, config: {} };
  const fields = entry as Record<string, unknown>;
  const nameKey = typeof fields.plugin === 'string' ? 'plugin' : 'type';
  const { [nameKey]: name, enabled, config, ...topLevelExtras } = fields;
  const tool: ToolEntry = {
    type: canonicalToolType(name as string),
    enabled: typeof enabled === 'boolean' ? enabled : true,
    config: { ...(isPlainRecord(config) ? config : {}), ...topLevelExtras },
  };
  if (ASSISTANT_TOOL_TYPES.has(tool.type)) {
    // Point at where the client wrote the id; a missing id belongs at the top, as in seed 002.
    const idPath =
      isPlainRecord(config) && 'assistant_id' in config && !('assistant_id' in topLevelExtras) ? 'config.assistant_id' : 'assistant_id';
    tool.config.assistant_id = normalizeAssistantId(tool.config.assistant_id, `metadata.tools[${index}].${idPath}`);
  }
  if (tool.type === RUBRIC_TOOL_TYPE && Number.isInteger(tool.config.rubric_id)) {
    tool.config.rubric_id = String(tool.config.rubric_id);
  }
  return tool;
}

/** Assistant ids are integers in Merino; 002's clients sometimes send them as digit strings. */
function normalizeAssistantId(value: unknown, path: string): number {
  if (value === undefined) {
    throw fieldError(path, `${path} is required for a tool of type "assistant".`);
  }
  const candidate = typeof value === 'string' && /^[0-9]+$/.test(value) ? Number(value) : value;
  if (typeof candidate === 'number' && Number.isSafeInteger(candidate) && candidate > 0) return candidate;
  throw fieldError(path, `${path} must be a positive integer (or a string of digits), not ${describeKind(value)}.`);
}

// ---------------------------------------------------------------------------------------------
// Schema errors
// ---------------------------------------------------------------------------------------------

const TOOL_SHAPES_HINT =
  'a tool is a name string, {type, enabled, config}, {type: "assistant", assistant_id} or {plugin, placeholder, enabled, config}';

function assertMatchesSchema(metadata: Record<string, unknown>): void {
  if (validateAssistantMetadata(metadata)) return;
  const errors = (validateAssistantMetadata.errors ?? [])
    // An if/then/else failure is always accompanied by the specific error that caused it.
    .filter((error) => error.keyword !== 'if')
    .map(describeSchemaError);
  const first = errors[0] ?? { path: 'metadata', message: 'metadata is invalid.' };
  throw new AppError('invalid_metadata', first.message, { param: first.path, details: { errors } });
}

function describeSchemaError(error: MetadataSchemaError): FieldError {
  const path = toParamPath(error.instancePath);
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required': {
      const missingPath = `${path}${propertyAccessor(String(params.missingProperty))}`;
      const hint = /^metadata\.tools\[\d+\]$/.test(path) ? ` (${TOOL_SHAPES_HINT})` : '';
      return { path: missingPath, message: `${missingPath} is required${hint}.` };
    }
    case 'type':
      return { path, message: `${path} must be ${describeTypes(params.type)}.` };
    case 'enum':
      return { path, message: `${path} must be one of ${(params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}.` };
    case 'minLength':
      return { path, message: `${path} must not be empty.` };
    case 'false schema':
      return { path, message: `${path} is not allowed here (a tool has either a type or a plugin, not both).` };
    default:
      return { path, message: `${path} ${error.message ?? 'is invalid'}.` };
  }
}

/** `/tools/1/type` → `metadata.tools[1].type`. */
function toParamPath(instancePath: string): string {
  if (instancePath === '') return 'metadata';
  const segments = instancePath
    .split('/')
    .slice(1)
    .map((segment) => segment.replace(/~1/g, '/').replace(/~0/g, '~'));
  return `metadata${segments.map(propertyAccessor).join('')}`;
}

function propertyAccessor(segment: string): string {
  if (/^[0-9]+$/.test(segment)) return `[${segment}]`;
  if (/^[A-Za-z_$][A-Za-z0-9_$]*$/.test(segment)) return `.${segment}`;
  return `[${JSON.stringify(segment)}]`;
}

function describeTypes(types: unknown): string {
  const list = Array.isArray(types) ? types.map(String) : String(types).split(',');
  return list.map(withArticle).join(' or ');
}

function withArticle(typeName: string): string {
  return /^[aeiou]/.test(typeName) ? `an ${typeName}` : `a ${typeName}`;
}

// ---------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------

function isPlainRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function describeKind(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') return `the string ${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)}`;
  if (typeof value === 'number' || typeof value === 'boolean') return `the ${typeof value} ${String(value)}`;
  return withArticle(typeof value);
}

function invalidMetadata(message: string): AppError {
  return fieldError('metadata', message);
}

function fieldError(path: string, message: string): AppError {
  return new AppError('invalid_metadata', message, { param: path, details: { errors: [{ path, message }] } });
}

/** DESIGN §1: an assistant with at least one enabled `assistant` (or `image_gen`) tool is an orchestrator, and can never be a tool itself. */
export function isOrchestrator(metadata: Pick<AssistantMetadata, 'tools'>): boolean {
  return (metadata.tools ?? []).some((entry) => entry.enabled && ASSISTANT_TOOL_TYPES.has(entry.type));
}

/** The target ids of an orchestrator's enabled assistant tools, in configured order. */
export function assistantToolTargets(metadata: Pick<AssistantMetadata, 'tools'>): Array<{ index: number; assistantId: number }> {
  return (metadata.tools ?? []).flatMap((entry, index) =>
    entry.enabled && ASSISTANT_TOOL_TYPES.has(entry.type) && typeof entry.config.assistant_id === 'number'
      ? [{ index, assistantId: entry.config.assistant_id }]
      : [],
  );
}
