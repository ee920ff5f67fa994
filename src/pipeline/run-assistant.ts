/**
 * Runs one request through an assistant (DESIGN §3): context tools concurrently, then the prompt
 * processor, then the connector, yielding pipeline events as they happen. It knows nothing of
 * HTTP or SQL: everything it needs arrives in the PipelineContext.
 */
import { AppError } from '../errors/app-error.js';
import type { AssistantSnapshot } from './assistant-snapshot.js';
import { planAssistant } from './assistant-plan.js';
import type { GenerationParameters, ProviderSettings } from './connector-definition.js';
import { runContextTools, type ContextResult, type ToolStep } from './context-orchestrator.js';
import { EventChannel } from './event-channel.js';
import { addUsage, NO_USAGE, type FinishReason, type PipelineEvent, type StatusEvent, type Usage } from './events.js';
import { messageText, type ChatMessage } from './messages.js';
import type { FileReader, Integrations, KnowledgeSearch, QueryRewriter, Requester, RubricReader } from './ports.js';
import type { Registries } from './registries.js';
import type { ToolContext } from './tool-definition.js';

export interface PipelineRequest {
  messages: ChatMessage[];
  parameters: GenerationParameters;
}

export interface PipelineLimits {
  toolTimeoutMilliseconds: number;
  upstreamTimeoutMilliseconds: number;
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
  usage: Usage;
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
  provider(connectorName: string): ProviderSettings;
  signal: AbortSignal;
  limits: PipelineLimits;
  /** Called once for every run that gets as far as the model call, whether the call succeeds or not. */
  onTrace?(trace: PipelineTrace): void;
}

function marker(name: string, text: string): string {
  return `[${name}: ${text.length.toLocaleString('en-US')} chars]`;
}

/** The prompt as the trace keeps it: the processor run again with markers in place of every value and message. */
function redactedPrompt(plan: ReturnType<typeof planAssistant>, context: PipelineContext, request: PipelineRequest, result: ContextResult, known: ReadonlySet<string>): ChatMessage[] {
  const values = Object.fromEntries(Object.entries(result.values).map(([name, value]) => [name, value === '' ? '' : marker(name, value)]));
  const messages = request.messages.map((message) => ({ ...message, content: marker(message.role, messageText(message.content)) }));
  return plan.promptProcessor.process({ assistant: context.assistant, messages, values, knownPlaceholders: known, sources: [] });
}

export async function* runAssistant(request: PipelineRequest, context: PipelineContext): AsyncGenerator<PipelineEvent> {
  const plan = planAssistant(context.assistant, context.registries);
  let statusCount = 0;
  const channel = new EventChannel<PipelineEvent>();
  const toolContext: ToolContext = { assistant: context.assistant, messages: request.messages, signal: context.signal, files: context.files, rubrics: context.rubrics, knowledge: context.knowledge, queryRewriter: context.queryRewriter, requester: context.requester, integrations: context.integrations };
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
  const known = new Set([...context.registries.tools.placeholders(), ...plan.contextTools.map((run) => run.placeholder)]);
  const messages = plan.promptProcessor.process({ assistant: context.assistant, messages: request.messages, values: result.values, knownPlaceholders: known, sources: result.sources });
  const trace: PipelineTrace = {
    assistantId: context.assistant.id,
    connector: plan.connector.name,
    model: plan.model,
    promptProcessor: plan.promptProcessor.name,
    steps: result.steps,
    prompt: redactedPrompt(plan, context, request, result, known),
    modelDurationMilliseconds: 0,
    usage: NO_USAGE,
  };

  const modelStarted = performance.now();
  let usage = NO_USAGE;
  let finishReason: FinishReason = 'stop';
  try {
    for await (const event of plan.connector.complete({
      model: plan.model,
      messages,
      parameters: request.parameters,
      provider: context.provider(plan.connector.name),
      signal: context.signal,
      timeoutMilliseconds: context.limits.upstreamTimeoutMilliseconds,
    })) {
      if (event.type === 'usage') usage = addUsage(usage, event.usage);
      else if (event.type === 'finish') finishReason = event.finishReason;
      else yield event;
    }
  } catch (error) {
    trace.error = error instanceof AppError ? error.code : 'failed';
    throw error;
  } finally {
    trace.modelDurationMilliseconds = Math.round(performance.now() - modelStarted);
    trace.usage = usage;
    context.onTrace?.(trace);
  }
  yield { type: 'finish', finishReason };
  if (result.sources.length > 0) yield { type: 'sources', sources: result.sources };
  yield { type: 'usage', usage };
}
