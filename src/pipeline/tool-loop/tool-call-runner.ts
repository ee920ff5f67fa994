/**
 * One function call of the tool loop, from the model's call to the `role: tool` message it reads:
 * the name looked up among the functions offered, the arguments parsed and checked against the
 * function's schema, an identical call refused past its limit, the call run within its timeout
 * and its result truncated. Every failure becomes a result the model can read, and the trace
 * keeps only names the server knows, sizes and timings.
 */
import type { ValidateFunction } from 'ajv';
import { AppError } from '../../errors/app-error.js';
import { createAjv } from '../../validation/create-ajv.js';
import { describeAjvError } from '../../validation/json-schema-problems.js';
import { callWithinTimeout, failureReason, requireValidOutput, ToolTimeout } from '../bounds/bounded-call.js';
import type { ChatMessage } from '../conversation/messages.js';
import type { Source, StatusEvent } from '../conversation/events.js';
import type { ModelToolCall } from '../plugin-contract/connector-definition.js';
import type { ToolContext } from '../plugin-contract/tool-definition.js';
import type { FunctionToolRun, SkippedFunctionTool } from './function-tools.js';

/** The bounds on one call. */
export interface CallLimits {
  callTimeoutMilliseconds: number;
  /** How many times one identical call (same function, same arguments) runs in a request. */
  identicalCallsMaximum: number;
  resultCharactersMaximum: number;
}

/** What the runner reads of the tool loop's input. */
export interface CallRunnerInput {
  functions: readonly FunctionToolRun[];
  /** Configured but not offered: a call to one of these is told why, not just "unknown". */
  unavailable?: readonly SkippedFunctionTool[];
  toolContext: ToolContext;
  limits: CallLimits;
  signal: AbortSignal;
  nextStatusId(): string;
}

/**
 * One call as the verbose trace keeps it: only names the server knows, sizes and timings, never
 * argument values. The model writes a call's name and keys, and a prompt injection can make it
 * write the learner's words there, so a name it was not offered is kept as UNKNOWN_FUNCTION, keys
 * only when the function's schema declares them (the others counted), and errors by kind.
 */
export interface ToolCallStep {
  round: number;
  function: string;
  tool?: string;
  argumentKeys: string[];
  /** Keys the model sent that the function's schema does not declare, counted, never named. */
  otherArgumentKeys?: number;
  durationMilliseconds: number;
  resultCharacters: number;
  sourceCount: number;
  error?: string;
}

const argumentValidator = createAjv({ strict: false, useDefaults: true, coerceTypes: false });
const validators = new WeakMap<object, ValidateFunction>();

function validatorFor(schema: Record<string, unknown>): ValidateFunction {
  let validate = validators.get(schema);
  if (validate === undefined) {
    validate = argumentValidator.compile(schema);
    validators.set(schema, validate);
  }
  return validate;
}

/** Object keys sorted at every level, so `{a, b}` and `{b, a}` count as the same call. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).sort(([left], [right]) => (left < right ? -1 : left > right ? 1 : 0));
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonicalJson(item)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/** What a trace records in place of a function name the model made up. */
export const UNKNOWN_FUNCTION = '[unknown function]';
/** Bounds on what a trace keeps of one call's keys, however large a schema a plugin declares. */
const TRACE_KEY_CHARACTERS_MAXIMUM = 64;
const TRACE_KEYS_MAXIMUM = 32;

/** A refusal the model reads in full, and the kind of it, which is all a trace keeps. */
class CallRefused extends Error {
  constructor(
    message: string,
    readonly kind: string,
  ) {
    super(message);
  }
}

/** The argument keys the function's schema declares, bounded; the rest are only counted. */
function traceKeys(
  argumentsObject: Record<string, unknown>,
  parameters: Record<string, unknown>,
): Pick<ToolCallStep, 'argumentKeys' | 'otherArgumentKeys'> {
  const properties = parameters.properties;
  const declared = properties !== null && typeof properties === 'object' ? new Set(Object.keys(properties)) : new Set<string>();
  const keys = Object.keys(argumentsObject);
  const known = keys.filter((key) => declared.has(key)).sort();
  const kept = known.slice(0, TRACE_KEYS_MAXIMUM).map((key) => key.slice(0, TRACE_KEY_CHARACTERS_MAXIMUM));
  const others = keys.length - kept.length;
  return { argumentKeys: kept, ...(others > 0 && { otherArgumentKeys: others }) };
}

/** How a failed call is named in a trace: by kind, never in words a model or a tool chose from the conversation. */
function traceReason(error: unknown): string {
  if (error instanceof CallRefused) return error.kind;
  if (error instanceof ToolTimeout) return error.message;
  if (error instanceof AppError) return `failed (${error.code})`;
  return 'failed';
}

/** The arguments as an object matching the function's schema (defaults applied), or a reason the model can act on. */
function readArguments(call: ModelToolCall, run: FunctionToolRun): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(call.argumentsJson);
  } catch (error) {
    throw new CallRefused(
      `invalid arguments: not valid JSON (${error instanceof Error ? error.message : 'unreadable'})`,
      'invalid arguments: not valid JSON',
    );
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed))
    throw new CallRefused('invalid arguments: expected a JSON object', 'invalid arguments: not a JSON object');
  const validate = validatorFor(run.specification.parameters);
  if (!validate(parsed)) {
    const problems = (validate.errors ?? []).map((error) => describeAjvError(error, '(arguments)').message);
    throw new CallRefused(`invalid arguments: ${problems.join('; ')}`, 'invalid arguments: they do not match the schema');
  }
  return parsed as Record<string, unknown>;
}

function truncated(content: string, maximum: number): string {
  if (content.length <= maximum) return content;
  return `${content.slice(0, maximum)}\n[truncated: the result had ${content.length} characters; only the first ${maximum} are shown]`;
}

export interface CallResult {
  message: ChatMessage;
  sources: Source[];
  step: ToolCallStep;
  /** The result's content with its sources numbered from a given number, when the tool numbers them. */
  numbered?: (firstNumber: number) => string;
}

export class CallRunner {
  private readonly byName: Map<string, FunctionToolRun>;
  private readonly counts = new Map<string, number>();

  constructor(private readonly input: CallRunnerInput) {
    this.byName = new Map(input.functions.map((run) => [run.functionName, run]));
  }

  /** The name of a configured function not offered in this request, which the server knows too. */
  private skippedName(name: string): string | undefined {
    return this.input.unavailable?.find((entry) => entry.functionName === name)?.functionName;
  }

  private unknownToolReason(name: string): string {
    const skipped = this.input.unavailable?.find((entry) => entry.functionName === name);
    if (skipped !== undefined) return `"${name}" is not available: ${skipped.reason}`;
    return `unknown tool "${name}"; the available tools are: ${[...this.byName.keys()].join(', ') || 'none'}`;
  }

  /** Refuses an identical call once it has run the allowed number of times. */
  private countCall(name: string, argumentsObject: Record<string, unknown>): void {
    const key = `${name}\u0000${canonicalJson(argumentsObject)}`;
    const count = (this.counts.get(key) ?? 0) + 1;
    this.counts.set(key, count);
    const maximum = this.input.limits.identicalCallsMaximum;
    if (count > maximum) {
      throw new CallRefused(
        `refused: this exact call (same function, same arguments) already ran ${maximum} time${maximum === 1 ? '' : 's'} in this request; use its earlier result`,
        'refused: identical call limit',
      );
    }
  }

  async run(call: ModelToolCall, round: number, emitStatus: (status: StatusEvent) => void): Promise<CallResult> {
    const started = performance.now();
    const statusId = this.input.nextStatusId();
    const run = this.byName.get(call.name);
    // A name the model made up may be anything, of any length: statuses and traces name it by kind.
    const label = run?.statusLabel ?? 'calling an unknown function';
    const statusTool = run?.toolName ?? UNKNOWN_FUNCTION;
    emitStatus({ id: statusId, tool: statusTool, state: 'running', message: label });
    const step: ToolCallStep = {
      round,
      function: run?.functionName ?? this.skippedName(call.name) ?? UNKNOWN_FUNCTION,
      ...(run && { tool: run.toolName }),
      argumentKeys: [],
      durationMilliseconds: 0,
      resultCharacters: 0,
      sourceCount: 0,
    };
    let content: string;
    let sources: Source[] = [];
    let numbered: ((firstNumber: number) => string) | undefined;
    try {
      if (run === undefined)
        throw new CallRefused(
          this.unknownToolReason(call.name),
          this.skippedName(call.name) === undefined ? 'unknown function' : 'not available',
        );
      const argumentsObject = readArguments(call, run);
      Object.assign(step, traceKeys(argumentsObject, run.specification.parameters));
      this.countCall(run.functionName, argumentsObject);
      const output = requireValidOutput(
        await callWithinTimeout(
          (signal) =>
            run.definition.function.call(
              argumentsObject,
              {
                ...this.input.toolContext,
                signal,
                callStatus: { id: statusId, emit: emitStatus },
                ...(run.variant !== undefined && { variant: run.variant }),
              },
              run.config,
            ),
          this.input.toolContext.signal,
          this.input.limits.callTimeoutMilliseconds,
        ),
      );
      content = truncated(output.content, this.input.limits.resultCharactersMaximum);
      const numberedContent = output.numberedContent;
      if (typeof numberedContent === 'function')
        numbered = (firstNumber) => truncated(numberedContent(firstNumber), this.input.limits.resultCharactersMaximum);
      sources = (output.sources ?? []).map((source) => ({ ...source, tool: run.toolName, function: run.functionName }));
      emitStatus({ id: statusId, tool: run.toolName, state: 'done', message: label });
    } catch (error) {
      if (this.input.signal.aborted) throw error;
      const reason = error instanceof CallRefused ? error.message : failureReason(error);
      step.error = traceReason(error);
      content = `Error: ${reason}`;
      emitStatus({ id: statusId, tool: statusTool, state: 'error', message: `${label}: ${reason}` });
    }
    step.durationMilliseconds = Math.round(performance.now() - started);
    step.resultCharacters = content.length;
    step.sourceCount = sources.length;
    return { message: { role: 'tool', tool_call_id: call.id, content }, sources, step, ...(numbered && { numbered }) };
  }
}
