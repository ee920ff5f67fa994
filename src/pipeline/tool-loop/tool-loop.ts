/**
 * The tool loop (DESIGN §3 step 4): call the model with the assistant's functions offered; read
 * the calls it makes, structured or written as text; run each round's calls at once; give the
 * results back as `role: tool` messages; repeat until the model answers. Text of every round
 * streams as it arrives, so no extra call is ever made just to stream an answer.
 *
 * Bounds: rounds with functions offered (after the last one the model is called once more
 * without them, so it must answer), a timeout per call, a total time for the whole loop, and a
 * limit on identical calls. Each call runs through tool-call-runner.ts, where every failure becomes
 * a result the model can read (unknown tool, invalid arguments, timed out, refused repeat): never a
 * crash, and never `{}` in place of arguments it could not read.
 */
import { randomUUID } from 'node:crypto';
import { AppError } from '../../errors/app-error.js';
import { startDeadline } from '../bounds/deadline.js';
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
import { CallRunner, type CallLimits, type CallResult, type ToolCallStep } from './tool-call-runner.js';

export interface ToolLoopLimits extends CallLimits {
  /** Rounds in which functions are offered. */
  iterations: number;
  totalMilliseconds: number;
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

export interface ToolLoopOutcome {
  usage: Usage;
  finishReason: FinishReason;
  calls: ToolCallStep[];
  /** Model calls made. */
  rounds: number;
  /** Set when the model was still calling functions after the last round that offered them. */
  stoppedBy?: 'iterations';
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
