/**
 * The tool loop (DESIGN §3 step 4): call the model with the assistant's functions offered; read
 * the calls it makes, structured or written as text; run each round's calls at once; give the
 * results back as `role: tool` messages; repeat until the model answers. Text of every round
 * streams as it arrives, so no extra call is ever made just to stream an answer.
 *
 * Bounds: rounds with functions offered (after the last one the model is called once more
 * without them, so it must answer), a timeout per call, a total time for the whole loop, and a
 * limit on identical calls. Every failure of a call becomes a result the model can read
 * (unknown tool, invalid arguments, timed out, refused repeat): never a crash, and never `{}`
 * in place of arguments it could not read.
 */
import { randomUUID } from 'node:crypto';
import type { ValidateFunction } from 'ajv';
import { AppError } from '../../errors/app-error.js';
import { startDeadline } from '../bounds/deadline.js';
import { createAjv } from '../../validation/create-ajv.js';
import { describeAjvError } from '../../validation/json-schema-problems.js';
import { callWithinTimeout, failureReason, requireValidOutput, ToolTimeout } from '../bounds/bounded-call.js';
import type { ConnectorDefinition, ConnectorRequest, ModelToolCall, ProviderSettings } from '../plugin-contract/connector-definition.js';
import type { ImageStore } from '../plugin-contract/ports.js';
import { EventChannel } from '../conversation/event-channel.js';
import {
  addUsage,
  listedSources,
  NO_USAGE,
  type FinishReason,
  type PipelineEvent,
  type Source,
  type StatusEvent,
  type Usage,
} from '../conversation/events.js';
import type { FunctionToolRun, SkippedFunctionTool } from './function-tools.js';
import type { ChatMessage } from '../conversation/messages.js';
import type { ToolContext } from '../plugin-contract/tool-definition.js';
import type { TextParserEvent } from '../../text-tool-calls/index.js';
import { upstreamEndedEarlyError } from '../upstream/upstream-errors.js';

export interface ToolLoopLimits {
  /** Rounds in which functions are offered. */
  iterations: number;
  callTimeoutMilliseconds: number;
  totalMilliseconds: number;
  /** How many times one identical call (same function, same arguments) runs in a request. */
  identicalCallsMaximum: number;
  resultCharactersMaximum: number;
}

/** The seam to the text tool-call parser (src/text-tool-calls), so tests can script what it reads. */
export interface TextCallParser {
  push(delta: string): TextParserEvent[];
  end(): TextParserEvent[];
}

export interface ToolLoopInput {
  connector: ConnectorDefinition;
  model: string;
  messages: readonly ChatMessage[];
  parameters: ConnectorRequest['parameters'];
  /** The client waits for one whole answer; passed on to the connector in rounds that offer no functions. */
  wholeAnswer?: boolean;
  provider: ProviderSettings;
  /** Where an image connector keeps what it generates (the requester's files). */
  images?: ImageStore;
  signal: AbortSignal;
  upstreamTimeoutMilliseconds: number;
  functions: readonly FunctionToolRun[];
  /** Configured but not offered: a call to one of these is told why, not just "unknown". */
  unavailable?: readonly SkippedFunctionTool[];
  toolContext: ToolContext;
  limits: ToolLoopLimits;
  /** The number the calls' first source has among the answer's sources (after the context tools'); 1 when unset. */
  firstSourceNumber?: number;
  /**
   * Reads calls written as text (and reasoning) in one round; absent when the assistant asks for
   * native calls only. `offering` tells whether the round offers tools: a round that does not may
   * still need a parser that reads no calls, for reasoning its chat template opened.
   */
  createTextParser?: (offering: boolean) => TextCallParser | undefined;
  nextStatusId(): string;
  /** Gives a status the display name its tool has (the run's tool registry); statuses go out as they are without it. */
  nameStatus?: (status: StatusEvent) => StatusEvent;
  /** Told of every usage report as it arrives, so a run that fails still knows what it used. */
  usageReceived?(usage: Usage): void;
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

export interface ToolLoopOutcome {
  usage: Usage;
  finishReason: FinishReason;
  calls: ToolCallStep[];
  /** Model calls made. */
  rounds: number;
  /** Set when the model was still calling functions after the last round that offered them. */
  stoppedBy?: 'iterations';
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

interface CallResult {
  message: ChatMessage;
  sources: Source[];
  step: ToolCallStep;
  /** The result's content with its sources numbered from a given number, when the tool numbers them. */
  numbered?: (firstNumber: number) => string;
}

class CallRunner {
  private readonly byName: Map<string, FunctionToolRun>;
  private readonly counts = new Map<string, number>();

  constructor(private readonly input: ToolLoopInput) {
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

interface RoundResult {
  text: string;
  calls: ModelToolCall[];
  finishReason: FinishReason;
  usage: Usage;
}

/** One model call, streaming its text (through the text parser when there is one) and collecting its calls. */
async function* modelRound(
  input: ToolLoopInput,
  messages: readonly ChatMessage[],
  offer: boolean,
  signal: AbortSignal,
): AsyncGenerator<PipelineEvent, RoundResult> {
  const parser = input.createTextParser?.(offer);
  const result: RoundResult = { text: '', calls: [], finishReason: 'stop', usage: NO_USAGE };
  const fromParser = function* (events: TextParserEvent[]): Generator<PipelineEvent> {
    for (const event of events) {
      if (event.type === 'text') {
        result.text += event.text;
        yield { type: 'text-delta', text: event.text };
      } else if (event.type === 'reasoning') yield { type: 'reasoning-delta', text: event.text };
      else result.calls.push({ id: `call_${randomUUID()}`, name: event.name, argumentsJson: event.argumentsJson });
    }
  };
  const request: ConnectorRequest = {
    model: input.model,
    messages: [...messages],
    parameters: input.parameters,
    ...(offer && { tools: input.functions.map((run) => run.specification) }),
    provider: input.provider,
    signal,
    timeoutMilliseconds: input.upstreamTimeoutMilliseconds,
    ...(input.wholeAnswer === true && !offer && { wholeAnswer: true }),
    ...(input.images !== undefined && { images: input.images }),
  };
  let finished = false;
  for await (const event of input.connector.complete(request)) {
    // No default: an event type a plugin made up is ignored, not taken for the finish.
    switch (event.type) {
      case 'text-delta':
        if (parser) yield* fromParser(parser.push(event.text));
        else {
          result.text += event.text;
          yield event;
        }
        break;
      case 'reasoning-delta':
        yield event;
        break;
      case 'tool-call':
        if (offer) result.calls.push(event.call);
        break;
      case 'usage':
        result.usage = addUsage(result.usage, event.usage);
        input.usageReceived?.(event.usage);
        break;
      case 'finish':
        finished = true;
        result.finishReason = event.finishReason;
        break;
    }
  }
  // The connector contract: a whole answer ends with `finish`. A stream that just stops was cut
  // (or comes from a plugin that forgot to say), and is never passed on as a short answer.
  if (!finished) throw signal.aborted ? signal.reason : upstreamEndedEarlyError();
  if (parser) yield* fromParser(parser.end());
  return result;
}

/** Runs a round's calls at once, streaming their status events as they happen; results keep the calls' order. */
/** Gives a call's content the numbers its sources have among the answer's. */
function numberResult(result: CallResult, firstNumber: number): void {
  const content = result.numbered?.(firstNumber) ?? result.message.content;
  result.message = { ...result.message, content };
  result.step.resultCharacters = typeof content === 'string' ? content.length : result.step.resultCharacters;
}

async function* runCalls(
  runner: CallRunner,
  calls: readonly ModelToolCall[],
  round: number,
  nameStatus: (status: StatusEvent) => StatusEvent,
): AsyncGenerator<PipelineEvent, CallResult[]> {
  const channel = new EventChannel<PipelineEvent>();
  const emit = (status: StatusEvent): void => channel.push({ type: 'status', status: nameStatus(status) });
  const work = Promise.all(calls.map((call) => runner.run(call, round, emit))).finally(() => channel.close());
  yield* channel;
  return work;
}

export async function* runToolLoop(input: ToolLoopInput): AsyncGenerator<PipelineEvent, ToolLoopOutcome> {
  const deadline = startDeadline(input.limits.totalMilliseconds, input.signal);
  const signal = deadline.signal;
  const runner = new CallRunner({ ...input, signal, toolContext: { ...input.toolContext, signal } });
  const messages: ChatMessage[] = [...input.messages];
  const outcome: ToolLoopOutcome = { usage: NO_USAGE, finishReason: 'stop', calls: [], rounds: 0 };
  let nextSourceNumber = input.firstSourceNumber ?? 1;
  try {
    for (;;) {
      const offer = input.functions.length > 0 && outcome.rounds < input.limits.iterations;
      outcome.rounds += 1;
      const round = yield* modelRound(input, messages, offer, signal);
      outcome.usage = addUsage(outcome.usage, round.usage);
      if (round.calls.length === 0) {
        // A model that says tool_calls but makes none has answered.
        outcome.finishReason = round.finishReason === 'tool_calls' ? 'stop' : round.finishReason;
        if (!offer && input.functions.length > 0) outcome.stoppedBy = 'iterations';
        return outcome;
      }
      messages.push({
        role: 'assistant',
        content: round.text === '' ? null : round.text,
        tool_calls: round.calls.map((call) => ({
          id: call.id,
          type: 'function',
          function: { name: call.name, arguments: call.argumentsJson },
        })),
      });
      const results = yield* runCalls(runner, round.calls, outcome.rounds, input.nameStatus ?? ((status) => status));
      const roundSources: Source[] = [];
      for (const result of results) {
        // In call order, so the numbers a model sees are those its sources have on the page.
        const listed = listedSources(result.sources);
        if (result.numbered) numberResult(result, nextSourceNumber);
        nextSourceNumber += listed.length;
        messages.push(result.message);
        roundSources.push(...listed);
        outcome.calls.push(result.step);
      }
      // Sent after each round, so an answer stopped in a later round keeps what earlier calls found.
      if (roundSources.length > 0) yield { type: 'sources', sources: roundSources };
    }
  } catch (error) {
    if (deadline.expired)
      throw new AppError('upstream_timeout', `The assistant's tool loop did not finish within ${input.limits.totalMilliseconds} ms.`);
    throw error;
  } finally {
    deadline.clear();
  }
}
