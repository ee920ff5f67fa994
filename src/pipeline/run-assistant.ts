/**
 * Runs one request through an assistant (DESIGN §3): context tools concurrently, then the prompt
 * processor, then the connector, through the tool loop when the assistant offers functions,
 * yielding pipeline events as they happen. It knows nothing of HTTP or SQL: everything it needs
 * arrives in the PipelineContext.
 */
import { AppError } from '../errors/app-error.js';
import type { AssistantSnapshot } from './assistant-metadata/assistant-snapshot.js';
import { planAssistant, type AssistantPlan } from './assistant-plan.js';
import type { GenerationParameters, ProviderSettings } from './plugin-contract/connector-definition.js';
import {
  clientSystemMessageHandlingOf,
  clientSystemMessagesNote,
  separateClientSystemMessages,
  withClientSystemMessages,
  type ClientSystemMessageHandling,
  type ClientSystemMessagesNote,
} from './conversation/client-system-messages.js';
import { runContextTools, type ContextResult, type ToolStep } from './context-tools/context-orchestrator.js';
import { EventChannel } from './conversation/event-channel.js';
import { addUsage, listedSources, NO_USAGE, type PipelineEvent, type StatusEvent, type Usage } from './conversation/events.js';
import { messageText, type ChatMessage } from './conversation/messages.js';
import type {
  AssistantRunner,
  FileReader,
  ImageStore,
  Integrations,
  KnowledgeSearch,
  McpServers,
  QueryRewriter,
  Requester,
  RubricReader,
  ToolModels,
} from './plugin-contract/ports.js';
import type { Registries } from './plugin-loading/registries.js';
import { functionToolsOf, type FunctionToolRun, type FunctionTools, type SkippedFunctionTool } from './tool-loop/function-tools.js';
import type { PromptInput, PromptProcessorDefinition } from './plugin-contract/prompt-processor-definition.js';
import {
  resolveReasoningOpened,
  TextToolCallParser,
  type ReasoningOpenedSetting,
  type ToolCallFormatSetting,
} from '../text-tool-calls/index.js';
import type { ToolContext } from './plugin-contract/tool-definition.js';
import type { ToolCallStep } from './tool-loop/tool-call-runner.js';
import { runToolLoop, type TextCallParser, type ToolLoopOutcome } from './tool-loop/tool-loop.js';
import { toolLoopLimitsFor, type ToolLoopSettings } from './tool-loop/tool-loop-limits.js';

export interface PipelineRequest {
  messages: ChatMessage[];
  parameters: GenerationParameters;
  /** The client asked for one JSON answer rather than a stream (see ConnectorRequest.wholeAnswer). */
  wholeAnswer?: boolean;
}

export interface PipelineLimits {
  toolTimeoutMilliseconds: number;
  upstreamTimeoutMilliseconds: number;
  toolLoop: ToolLoopSettings;
}

/** A redacted record of a run, kept when the assistant is verbose: identifiers, sizes and timings only. */
export interface PipelineTrace {
  assistantId: number;
  connector: string;
  model: string;
  promptProcessor: string;
  steps: ToolStep[];
  /**
   * The messages the model received, each inserted value and user text replaced by a length
   * marker; empty unless the assistant is verbose, since only a verbose run's trace is kept.
   * Rendered when first read (the trace is written after the answer), not before the model call.
   */
  readonly prompt: ChatMessage[];
  modelDurationMilliseconds: number;
  /** What the provider reported using, also when the run failed part way. */
  usage: Usage;
  /** The client's system and developer messages: how many, and whether they were dropped or appended. */
  clientSystemMessages?: ClientSystemMessagesNote;
  /** The functions offered to the model, by the name it saw. */
  functions: string[];
  /** Configured function tools not offered in this request, and why. */
  skippedFunctions: SkippedFunctionTool[];
  /** Every call the model made, with argument keys, sizes and timings (never argument values). */
  toolCalls: ToolCallStep[];
  /** Model calls made, and whether the loop reached its round limit. */
  rounds: number;
  stoppedBy?: 'iterations';
  error?: string;
}

export interface PipelineContext {
  assistant: AssistantSnapshot;
  registries: Registries;
  files: FileReader;
  rubrics: RubricReader;
  knowledge: KnowledgeSearch;
  queryRewriter: QueryRewriter;
  requester: Requester;
  integrations: Integrations;
  assistants: AssistantRunner;
  mcpServers: McpServers;
  models: ToolModels;
  provider(connectorName: string): ProviderSettings;
  /** Where an image connector keeps generated images: the requester's files. */
  images?: ImageStore;
  signal: AbortSignal;
  limits: PipelineLimits;
  /** Called once for every run that gets as far as the model call, whether the call succeeds or not. */
  onTrace?(trace: PipelineTrace): void;
}

function processorPlaceholders(registries: Registries): string[] {
  return [...registries.promptProcessors.values()].flatMap((processor) => processor.placeholders ?? []);
}

/**
 * Calls written as text are read unless the assistant asks for native calls only (`tool_call_format`).
 * When the chat template opens reasoning (`reasoning_opened`, resolved for the assistant's model), a
 * round that offers no tools still gets a parser, one that reads no calls, so that reasoning never
 * reaches the answer.
 */
function textParserFor(
  assistant: AssistantSnapshot,
  functions: readonly FunctionToolRun[],
): { createTextParser?: (offering: boolean) => TextCallParser | undefined } {
  const format = assistant.metadata.tool_call_format ?? 'auto';
  if (format === 'native') return {};
  const reasoningOpened = resolveReasoningOpened(
    (assistant.metadata.reasoning_opened ?? 'auto') as ReasoningOpenedSetting,
    assistant.metadata.llm,
  );
  const tools = functions.map((run) => ({ name: run.functionName, parameters: run.specification.parameters }));
  const setting = format as Exclude<ToolCallFormatSetting, 'native'>;
  return {
    createTextParser: (offering) => {
      if (offering) return new TextToolCallParser({ tools, format: setting, reasoningOpened });
      return reasoningOpened === 'always' ? new TextToolCallParser({ tools: [], format: setting, reasoningOpened }) : undefined;
    },
  };
}

/** A processor's own placeholders (moodle_augment's `moodle_user`); a failure leaves them empty rather than failing the request. */
async function processorValuesOf(processor: PromptProcessorDefinition, context: ToolContext): Promise<Record<string, string>> {
  if (processor.resolveValues === undefined) return {};
  try {
    return await processor.resolveValues(context);
  } catch {
    return {};
  }
}

const CHARACTER_COUNT = new Intl.NumberFormat('en-US');

function marker(name: string, text: string): string {
  return `[${name}: ${CHARACTER_COUNT.format(text.length)} chars]`;
}

/** The prompt as the trace keeps it: the processor run again with markers in place of every value and message. */
function redactedPrompt(processor: PromptProcessorDefinition, input: PromptInput): ChatMessage[] {
  const values = Object.fromEntries(Object.entries(input.values).map(([name, value]) => [name, value === '' ? '' : marker(name, value)]));
  return processor.process({ ...input, messages: redactedMessages(input.messages), values, sources: [] });
}

function redactedMessages(messages: readonly ChatMessage[]): ChatMessage[] {
  return messages.map((message) => ({ ...message, content: marker(message.role, messageText(message.content)) }));
}

export async function* runAssistant(request: PipelineRequest, context: PipelineContext): AsyncGenerator<PipelineEvent> {
  const setup = setUpRun(request, context);
  const contextResult = yield* runContextToolsStep(setup, context.limits.toolTimeoutMilliseconds);
  // Sent as soon as they are known, so an answer stopped mid-way keeps the sources it was given.
  const contextSources = listedSources(contextResult.sources);
  if (contextSources.length > 0) yield { type: 'sources', sources: contextSources };
  const prompt = await preparePrompt(setup, context, contextResult);
  const trace = startTrace(setup, context, contextResult, prompt);
  const outcome = yield* runModelStep({
    setup,
    context,
    firstSourceNumber: contextSources.length + 1,
    parameters: request.parameters,
    wholeAnswer: request.wholeAnswer === true,
    prompt,
    trace,
  });
  yield* closingEvents(outcome);
}

/** What every step of a run reads: the plan, the conversation as tools see it, and the status ids they share. */
interface RunSetup {
  plan: AssistantPlan;
  /** The conversation without the client's system and developer messages. */
  conversation: ChatMessage[];
  clientSystem: ChatMessage[];
  clientSystemHandling: ClientSystemMessageHandling;
  toolContext: ToolContext;
  /** One sequence for context tools and function calls alike, so every status id of a run is unique. */
  nextStatusId: () => string;
  /** A status with its tool's display name ("Knowledge Base RAG" rather than `simple_rag`), for clients to show. */
  nameStatus: (status: StatusEvent) => StatusEvent;
}

function setUpRun(request: PipelineRequest, context: PipelineContext): RunSetup {
  const plan = planAssistant(context.assistant, context.registries);
  // Taken out before any tool or processor sees the conversation, so none can treat them as the teacher's.
  const { conversation, clientSystem } = separateClientSystemMessages(request.messages);
  let statusCount = 0;
  return {
    plan,
    conversation,
    clientSystem,
    clientSystemHandling: clientSystemMessageHandlingOf(context.assistant.metadata.client_system_messages),
    toolContext: {
      assistant: context.assistant,
      messages: conversation,
      signal: context.signal,
      files: context.files,
      rubrics: context.rubrics,
      knowledge: context.knowledge,
      queryRewriter: context.queryRewriter,
      requester: context.requester,
      integrations: context.integrations,
      assistants: context.assistants,
      mcpServers: context.mcpServers,
      models: context.models,
    },
    nextStatusId: () => `status-${++statusCount}`,
    nameStatus: (status) => {
      const displayName = context.registries.tools.get(status.tool)?.displayName;
      return displayName === undefined ? status : { ...status, display_name: displayName };
    },
  };
}

/** Step 1: every context tool at once, their statuses streamed as they happen. */
async function* runContextToolsStep(setup: RunSetup, timeoutMilliseconds: number): AsyncGenerator<PipelineEvent, ContextResult> {
  const channel = new EventChannel<PipelineEvent>();
  const emitStatus = (status: StatusEvent) => channel.push({ type: 'status', status: setup.nameStatus(status) });
  const work = runContextTools(setup.plan.contextTools, setup.toolContext, {
    timeoutMilliseconds,
    emitStatus,
    nextStatusId: setup.nextStatusId,
  }).finally(() => channel.close());
  yield* channel;
  return work;
}

/** What the prompt processor was given and made of it, and the functions offered beside it. */
interface PreparedPrompt {
  input: PromptInput;
  /** The messages the model receives, the client's system messages placed as the assistant allows. */
  messages: ChatMessage[];
  functions: FunctionTools;
}

/** Step 2: the prompt processor builds the messages from the conversation and the context tools' values. */
async function preparePrompt(setup: RunSetup, context: PipelineContext, contextResult: ContextResult): Promise<PreparedPrompt> {
  const { plan, toolContext } = setup;
  const processorValues = await processorValuesOf(plan.promptProcessor, toolContext);
  // Entries may route output to a placeholder of their own (LAMB's multi-tool form); those are known too.
  const known = new Set([
    ...context.registries.tools.placeholders(),
    ...processorPlaceholders(context.registries),
    ...plan.contextTools.map((run) => run.placeholder),
  ]);
  const functions = await functionToolsOf(context.assistant, context.registries, toolContext);
  const input: PromptInput = {
    assistant: context.assistant,
    messages: setup.conversation,
    values: { ...contextResult.values, ...processorValues },
    knownPlaceholders: known,
    sources: contextResult.sources,
    functions: functions.offered.map((run) => ({ name: run.functionName, description: run.specification.description })),
  };
  const messages = withClientSystemMessages(plan.promptProcessor.process(input), setup.clientSystem, setup.clientSystemHandling);
  return { input, messages, functions };
}

/**
 * Defines the trace's `prompt` as rendered on first read. A verbose trace is written after the
 * answer, so rendering the prompt again with markers no longer delays the model call. Its inputs
 * (the conversation and the tools' values) are not changed after the prompt is built.
 */
function renderedOnRead(trace: Omit<PipelineTrace, 'prompt'>, render: () => ChatMessage[]): PipelineTrace {
  let rendered: ChatMessage[] | undefined;
  return Object.defineProperty(trace, 'prompt', { enumerable: true, get: () => (rendered ??= render()) }) as PipelineTrace;
}

/** The trace of the run as far as the model call; the model step fills in the rest. */
function startTrace(setup: RunSetup, context: PipelineContext, contextResult: ContextResult, prompt: PreparedPrompt): PipelineTrace {
  const { plan, clientSystem, clientSystemHandling } = setup;
  const clientSystemNote = clientSystemMessagesNote(clientSystem, clientSystemHandling);
  const trace = {
    assistantId: context.assistant.id,
    connector: plan.connector.name,
    model: plan.model,
    promptProcessor: plan.promptProcessor.name,
    steps: contextResult.steps,
    ...(clientSystemNote !== undefined && { clientSystemMessages: clientSystemNote }),
    modelDurationMilliseconds: 0,
    usage: NO_USAGE,
    functions: prompt.functions.offered.map((run) => run.functionName),
    skippedFunctions: prompt.functions.skipped,
    toolCalls: [],
    rounds: 0,
  };
  // Rendering the prompt again with markers is only worth it for a trace that is kept.
  if (context.assistant.metadata.verbose !== true) return { ...trace, prompt: [] };
  return renderedOnRead(trace, () =>
    withClientSystemMessages(redactedPrompt(plan.promptProcessor, prompt.input), redactedMessages(clientSystem), clientSystemHandling),
  );
}

interface ModelStep {
  setup: RunSetup;
  context: PipelineContext;
  parameters: GenerationParameters;
  wholeAnswer: boolean;
  /** The number the first function call's source gets: after the context tools' listed sources. */
  firstSourceNumber: number;
  prompt: PreparedPrompt;
  /** Completed when the step ends, whether the model answered or not, and handed to `onTrace`. */
  trace: PipelineTrace;
}

/** Step 3: the connector, through the tool loop; the trace is recorded however the loop ends. */
async function* runModelStep(step: ModelStep): AsyncGenerator<PipelineEvent, ToolLoopOutcome> {
  const { setup, context, prompt, trace } = step;
  const { plan } = setup;
  const modelStarted = performance.now();
  let usageReceived: Usage = NO_USAGE;
  const loop = runToolLoop({
    connector: plan.connector,
    model: plan.model,
    messages: prompt.messages,
    parameters: step.parameters,
    wholeAnswer: step.wholeAnswer,
    provider: context.provider(plan.connector.name),
    ...(context.images !== undefined && { images: context.images }),
    signal: context.signal,
    upstreamTimeoutMilliseconds: context.limits.upstreamTimeoutMilliseconds,
    functions: prompt.functions.offered,
    unavailable: prompt.functions.skipped,
    toolContext: setup.toolContext,
    firstSourceNumber: step.firstSourceNumber,
    limits: toolLoopLimitsFor(context.assistant.metadata.tool_loop, context.limits.toolLoop),
    ...textParserFor(context.assistant, prompt.functions.offered),
    nextStatusId: setup.nextStatusId,
    nameStatus: setup.nameStatus,
    usageReceived: (usage) => {
      usageReceived = addUsage(usageReceived, usage);
    },
  });
  let outcome: ToolLoopOutcome | undefined;
  try {
    outcome = yield* loop;
  } catch (error) {
    trace.error = error instanceof AppError ? error.code : 'failed';
    throw error;
  } finally {
    trace.modelDurationMilliseconds = Math.round(performance.now() - modelStarted);
    // A failed or cancelled run keeps the usage its provider did report before it ended.
    trace.usage = usageReceived;
    if (outcome !== undefined) {
      trace.usage = outcome.usage;
      trace.toolCalls = outcome.calls;
      trace.rounds = outcome.rounds;
      if (outcome.stoppedBy !== undefined) trace.stoppedBy = outcome.stoppedBy;
    }
    context.onTrace?.(trace);
  }
  return outcome;
}

/** Step 4: the finish, then the usage (the sources went out as each tool reported them). */
function* closingEvents(outcome: ToolLoopOutcome): Generator<PipelineEvent> {
  yield { type: 'finish', finishReason: outcome.finishReason };
  yield { type: 'usage', usage: outcome.usage };
}
