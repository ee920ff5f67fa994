/**
 * Runs one request through an assistant (DESIGN §3): context tools concurrently, then the prompt
 * processor, then the connector, through the tool loop when the assistant offers functions,
 * yielding pipeline events as they happen. It knows nothing of HTTP or SQL: everything it needs
 * arrives in the PipelineContext.
 */
import { AppError } from '../errors/app-error.js';
import type { AssistantSnapshot } from './assistant-snapshot.js';
import { planAssistant } from './assistant-plan.js';
import type { GenerationParameters, ProviderSettings } from './connector-definition.js';
import {
  clientSystemMessageHandlingOf,
  clientSystemMessagesNote,
  separateClientSystemMessages,
  withClientSystemMessages,
  type ClientSystemMessagesNote,
} from './client-system-messages.js';
import { runContextTools, type ToolStep } from './context-orchestrator.js';
import { EventChannel } from './event-channel.js';
import { addUsage, NO_USAGE, type PipelineEvent, type StatusEvent, type Usage } from './events.js';
import { messageText, type ChatMessage } from './messages.js';
import type { AssistantRunner, FileReader, Integrations, KnowledgeSearch, QueryRewriter, Requester, RubricReader } from './ports.js';
import type { Registries } from './registries.js';
import { functionToolsOf, type FunctionToolRun, type SkippedFunctionTool } from './function-tools.js';
import type { PromptInput, PromptProcessorDefinition } from './prompt-processor-definition.js';
import { TextToolCallParser, type ToolCallFormatSetting } from '../text-tool-calls/index.js';
import type { ToolContext } from './tool-definition.js';
import { runToolLoop, type TextCallParser, type ToolCallStep, type ToolLoopOutcome } from './tool-loop.js';
import { toolLoopLimitsFor, type ToolLoopSettings } from './tool-loop-limits.js';

export interface PipelineRequest {
  messages: ChatMessage[];
  parameters: GenerationParameters;
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
  /** The messages the model received, each inserted value and user text replaced by a length marker. */
  prompt: ChatMessage[];
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
  provider(connectorName: string): ProviderSettings;
  signal: AbortSignal;
  limits: PipelineLimits;
  /** Called once for every run that gets as far as the model call, whether the call succeeds or not. */
  onTrace?(trace: PipelineTrace): void;
}

function processorPlaceholders(registries: Registries): string[] {
  return [...registries.promptProcessors.values()].flatMap((processor) => processor.placeholders ?? []);
}

/** Calls written as text are read unless the assistant asks for native calls only (`tool_call_format`). */
function textParserFor(assistant: AssistantSnapshot, functions: readonly FunctionToolRun[]): { createTextParser?: () => TextCallParser } {
  const format = assistant.metadata.tool_call_format ?? 'auto';
  if (format === 'native' || functions.length === 0) return {};
  const tools = functions.map((run) => ({ name: run.functionName, parameters: run.specification.parameters }));
  return { createTextParser: () => new TextToolCallParser({ tools, format: format as Exclude<ToolCallFormatSetting, 'native'> }) };
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

function marker(name: string, text: string): string {
  return `[${name}: ${text.length.toLocaleString('en-US')} chars]`;
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
  const plan = planAssistant(context.assistant, context.registries);
  // Taken out before any tool or processor sees the conversation, so none can treat them as the teacher's.
  const { conversation, clientSystem } = separateClientSystemMessages(request.messages);
  const clientSystemHandling = clientSystemMessageHandlingOf(context.assistant.metadata.client_system_messages);
  let statusCount = 0;
  const channel = new EventChannel<PipelineEvent>();
  const toolContext: ToolContext = {
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
  };
  const emitStatus = (status: StatusEvent) => channel.push({ type: 'status', status });
  const nextStatusId = () => `status-${++statusCount}`;

  const contextWork = runContextTools(plan.contextTools, toolContext, {
    timeoutMilliseconds: context.limits.toolTimeoutMilliseconds,
    emitStatus,
    nextStatusId,
  }).finally(() => channel.close());
  yield* channel;
  const result = await contextWork;

  // Entries may route output to a placeholder of their own (LAMB's multi-tool form); those are known too.
  const processorValues = await processorValuesOf(plan.promptProcessor, toolContext);
  const values = { ...result.values, ...processorValues };
  const known = new Set([
    ...context.registries.tools.placeholders(),
    ...processorPlaceholders(context.registries),
    ...plan.contextTools.map((run) => run.placeholder),
  ]);
  const functions = await functionToolsOf(context.assistant, context.registries, toolContext);
  const offered = functions.offered.map((run) => ({ name: run.functionName, description: run.specification.description }));
  const promptInput: PromptInput = {
    assistant: context.assistant,
    messages: conversation,
    values,
    knownPlaceholders: known,
    sources: result.sources,
    functions: offered,
  };
  const messages = withClientSystemMessages(plan.promptProcessor.process(promptInput), clientSystem, clientSystemHandling);
  const clientSystemNote = clientSystemMessagesNote(clientSystem, clientSystemHandling);
  const trace: PipelineTrace = {
    assistantId: context.assistant.id,
    connector: plan.connector.name,
    model: plan.model,
    promptProcessor: plan.promptProcessor.name,
    steps: result.steps,
    prompt: withClientSystemMessages(
      redactedPrompt(plan.promptProcessor, promptInput),
      redactedMessages(clientSystem),
      clientSystemHandling,
    ),
    ...(clientSystemNote !== undefined && { clientSystemMessages: clientSystemNote }),
    modelDurationMilliseconds: 0,
    usage: NO_USAGE,
    functions: functions.offered.map((run) => run.functionName),
    skippedFunctions: functions.skipped,
    toolCalls: [],
    rounds: 0,
  };

  const modelStarted = performance.now();
  let usageReceived: Usage = NO_USAGE;
  const loop = runToolLoop({
    connector: plan.connector,
    model: plan.model,
    messages,
    parameters: request.parameters,
    provider: context.provider(plan.connector.name),
    signal: context.signal,
    upstreamTimeoutMilliseconds: context.limits.upstreamTimeoutMilliseconds,
    functions: functions.offered,
    unavailable: functions.skipped,
    toolContext,
    limits: toolLoopLimitsFor(context.assistant.metadata.tool_loop, context.limits.toolLoop),
    ...textParserFor(context.assistant, functions.offered),
    nextStatusId,
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
  yield { type: 'finish', finishReason: outcome.finishReason };
  const sources = [...result.sources, ...outcome.sources];
  if (sources.length > 0) yield { type: 'sources', sources };
  yield { type: 'usage', usage: outcome.usage };
}
