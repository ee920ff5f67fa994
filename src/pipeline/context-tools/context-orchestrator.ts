/**
 * Runs every enabled context tool of a request at once, each under its own timeout, and merges
 * their outputs by placeholder in configured order. A tool that fails or times out leaves its
 * placeholder empty and records the error; the request goes on. Error texts go to statuses and
 * traces as short reasons, never into the prompt.
 */
import { AppError } from '../../errors/app-error.js';
import { callWithinTimeout, failureReason, requireValidOutput } from '../bounds/bounded-call.js';
import type { Source, StatusEvent } from '../conversation/events.js';
import type { ToolConfig, ToolContext, ToolDefinition, ToolOutput } from '../plugin-contract/tool-definition.js';

export interface ContextToolRun {
  /** Undefined when the assistant names a tool that is not installed. */
  definition: ToolDefinition | undefined;
  toolName: string;
  config: ToolConfig;
  placeholder: string;
  /** Configuration problems found while planning; the tool is not run. */
  configError?: string;
}

export interface ToolStep {
  tool: string;
  placeholder: string;
  input: Record<string, unknown>;
  durationMilliseconds: number;
  outputCharacters: number;
  sourceCount: number;
  /** What the tool reports about its own run (identifiers and flags, never contents). */
  metadata?: Record<string, unknown>;
  error?: string;
}

export interface ContextResult {
  values: Record<string, string>;
  sources: Source[];
  steps: ToolStep[];
}

export interface OrchestratorOptions {
  timeoutMilliseconds: number;
  emitStatus(status: StatusEvent): void;
  nextStatusId(): string;
}

function statusMessage(run: ContextToolRun): string {
  try {
    return run.definition?.status?.(run.config) ?? `running ${run.toolName}`;
  } catch {
    return `running ${run.toolName}`;
  }
}

function traceInput(run: ContextToolRun): Record<string, unknown> {
  try {
    return run.definition?.traceInput?.(run.config) ?? {};
  } catch {
    return {};
  }
}

type Outcome =
  | { run: ContextToolRun; durationMilliseconds: number; output: ToolOutput }
  | { run: ContextToolRun; durationMilliseconds: number; error: string };

async function runOne(run: ContextToolRun, context: ToolContext, options: OrchestratorOptions): Promise<Outcome> {
  const id = options.nextStatusId();
  const message = statusMessage(run);
  const started = performance.now();
  options.emitStatus({ id, tool: run.toolName, state: 'running', message });
  try {
    if (!run.definition) throw new AppError('not_found', `tool "${run.toolName}" is not installed`);
    if (run.configError !== undefined) throw new AppError('invalid_body', run.configError);
    const definition = run.definition;
    const output = requireValidOutput(
      await callWithinTimeout(
        (signal) => definition.provide!({ ...context, signal }, run.config),
        context.signal,
        options.timeoutMilliseconds,
      ),
    );
    options.emitStatus({ id, tool: run.toolName, state: 'done', message });
    return { run, output, durationMilliseconds: performance.now() - started };
  } catch (error) {
    const reason = failureReason(error);
    options.emitStatus({ id, tool: run.toolName, state: 'error', message: `${message}: ${reason}` });
    return { run, error: reason, durationMilliseconds: performance.now() - started };
  }
}

/** The status a request shows while several tools' outputs are combined. */
export const MERGE_STATUS_MESSAGE = 'merging tool outputs';
export const MERGE_STATUS_TOOL = 'orchestrator';

export async function runContextTools(
  runs: readonly ContextToolRun[],
  context: ToolContext,
  options: OrchestratorOptions,
): Promise<ContextResult> {
  const outcomes = await Promise.all(runs.map((run) => runOne(run, context, options)));
  const mergeId = runs.length > 1 ? options.nextStatusId() : undefined;
  if (mergeId) options.emitStatus({ id: mergeId, tool: MERGE_STATUS_TOOL, state: 'running', message: MERGE_STATUS_MESSAGE });
  const values: Record<string, string[]> = {};
  const sources: Source[] = [];
  const steps: ToolStep[] = [];
  // Outcomes are in configured order whatever order the tools finished in.
  for (const outcome of outcomes) {
    const { run } = outcome;
    const content = 'output' in outcome ? outcome.output.content : '';
    const toolSources = 'output' in outcome ? (outcome.output.sources ?? []) : [];
    (values[run.placeholder] ??= []).push(...(content === '' ? [] : [content]));
    sources.push(...toolSources.map((source) => ({ ...source, tool: run.toolName, placeholder: run.placeholder })));
    steps.push({
      tool: run.toolName,
      placeholder: run.placeholder,
      input: traceInput(run),
      durationMilliseconds: Math.round(outcome.durationMilliseconds),
      outputCharacters: content.length,
      sourceCount: toolSources.length,
      ...('output' in outcome && outcome.output.metadata !== undefined && { metadata: outcome.output.metadata }),
      ...('error' in outcome && { error: outcome.error }),
    });
  }
  const joined = Object.fromEntries(Object.entries(values).map(([placeholder, parts]) => [placeholder, parts.join('\n\n')]));
  if (mergeId) options.emitStatus({ id: mergeId, tool: MERGE_STATUS_TOOL, state: 'done', message: MERGE_STATUS_MESSAGE });
  return { values: joined, sources, steps };
}
