/**
 * Chat completions as a service, composed of one file per job: model-resolution.ts (which
 * assistant a model id names), pipeline-context.ts (what a run needs, bound to the assistant's
 * owner) and run-recording.ts (usage logs and traces). This file starts runs, and wires an
 * orchestrator's calls to other assistants back into the same pipeline. The HTTP edge renders
 * what a run yields.
 */
import { randomUUID } from 'node:crypto';
import type { CallContext } from '../auth/call-context.js';
import type { Identity } from '../auth/identity.js';
import type { PipelineEvent } from '../pipeline/conversation/events.js';
import { isOrchestrator } from '../pipeline/assistant-metadata/metadata-normalizer.js';
import type { AssistantRunner, ImageStore, Requester } from '../pipeline/plugin-contract/ports.js';
import { runAssistant, type PipelineRequest, type PipelineTrace } from '../pipeline/run-assistant.js';
import type { AssistantRecord } from '../store/assistants-repository.js';
import { AssistantToolRunner, NO_ASSISTANT_TOOLS } from './assistant-tool-runner.js';
import { listModels, resolveModel, type ModelEntry } from './model-resolution.js';
import { snapshotOf } from '../assistants/assistant-view.js';
import { PipelineContextBuilder, type PipelineContextDependencies, type UsageAttribution } from './pipeline-context.js';
import { readTrace, recordedRun, type RunRecord } from './run-recording.js';
import { withSourcesBlock, type SourceLinkMaker } from './sources-block.js';

// The HTTP edge imports it from here; it is declared in model-resolution.ts.
export { MODEL_ID_PREFIX } from './model-resolution.js';

export interface CompletionRun {
  assistantId: number;
  /** Set when the assistant is verbose: the id its trace is stored under. */
  traceId: string | undefined;
  /** The assistant's `status_as_content` setting: what a stream does when the request does not say. */
  statusAsContent: boolean;
  events: AsyncGenerator<PipelineEvent>;
}

export interface CompletionStart {
  context: CallContext;
  /** The assistant, as resolveModel returned it. */
  record: AssistantRecord;
  request: PipelineRequest;
  /** The run stops when it aborts (the client went away). */
  signal: AbortSignal;
  /**
   * Set for a trusted front end that asked for it: the answer ends with a markdown "Sources"
   * block, each entry linked where this gives a link (sources-block.ts).
   */
  sourceLinkOf?: SourceLinkMaker | undefined;
  /** 'test' for an assistant's test runs: every usage row of the run is marked as test traffic. */
  traffic?: 'test' | undefined;
  /** Told the run's redacted trace as it ends (tool steps and rounds), for a test run's grading. */
  onTrace?: ((trace: PipelineTrace) => void) | undefined;
  /** The web chat the run answers in: images it generates are deleted with the chat. */
  chatId?: number | undefined;
}

/** An orchestrator's call to another assistant, within the request that started it. */
interface NestedRun {
  context: CallContext;
  orchestrator: AssistantRecord;
  target: AssistantRecord;
  requester: Requester;
  traffic: 'test' | undefined;
  images: ImageStore;
}

/** The request's user and assistant, whom every model call of the request is counted for. */
function attributionOf(context: CallContext, record: AssistantRecord, traffic?: 'test'): UsageAttribution {
  return {
    organizationId: record.organization_id,
    assistantId: record.id,
    userId: context.identity.userId,
    requestId: context.requestId,
    ...(traffic !== undefined && { traffic }),
  };
}

export class CompletionService {
  private readonly contexts: PipelineContextBuilder;

  constructor(private readonly dependencies: PipelineContextDependencies) {
    this.contexts = new PipelineContextBuilder(dependencies);
  }

  /** The assistant a model id names, if the caller may chat with it; 404 model_not_found otherwise. */
  async resolveModel(context: CallContext, modelId: string): Promise<AssistantRecord> {
    return resolveModel(this.dependencies.db, context, modelId);
  }

  async listModels(context: CallContext): Promise<ModelEntry[]> {
    return listModels(this.dependencies.db, context);
  }

  /** Starts a run; the events are produced as the caller iterates, and stop when `signal` aborts. */
  async start(options: CompletionStart): Promise<CompletionRun> {
    const { context, record, request, signal, sourceLinkOf, traffic, onTrace } = options;
    // A trusted front end's request already runs as the person it names (front-end-person-service.ts).
    const requester: Requester = { userId: context.identity.userId, email: context.identity.email };
    const owner = await this.contexts.ownerOf(record);
    // Images are the requester's, whichever assistant (an orchestrator's target too) makes them.
    const images = this.dependencies.imageStoreFor(context, options.chatId);
    const assistant = snapshotOf(record);
    const assistants = isOrchestrator(assistant.metadata)
      ? this.assistantRunnerFor({ context, orchestrator: record, requester, traffic, images }, owner)
      : NO_ASSISTANT_TOOLS;
    const attribution = attributionOf(context, record, traffic);
    const pipelineContext = await this.contexts.pipelineContextFor({
      record,
      assistant,
      owner,
      requester,
      signal,
      assistants,
      attribution,
      images,
    });
    // The one place every run for a person starts (the chat API, /v1, LAMB's and LTI's chats): the
    // token and cost quotas admit it here, before any model is called, and its nested assistant
    // runs and query rewrites count within this admission (src/usage/quota-admission.ts).
    const reservationId = await this.dependencies.admitRun({
      organizationId: record.organization_id,
      userId: context.identity.userId,
      assistantId: record.id,
      requestId: context.requestId,
    });
    const run: RunRecord = {
      context,
      record,
      snapshot: pipelineContext.assistant,
      traceId: pipelineContext.assistant.metadata.verbose === true ? randomUUID() : undefined,
      signal,
      reservationId,
      traffic,
    };
    // Statuses come named by their tools' display names from the pipeline itself (run-assistant.ts).
    const events = runAssistant(request, {
      ...pipelineContext,
      onTrace: (trace) => {
        run.trace = trace;
        onTrace?.(trace);
      },
    });
    return {
      assistantId: record.id,
      traceId: run.traceId,
      statusAsContent: pipelineContext.assistant.metadata.status_as_content === true,
      events:
        sourceLinkOf === undefined
          ? recordedRun(this.dependencies.runRecords, events, run)
          : withSourcesBlock(recordedRun(this.dependencies.runRecords, events, run), sourceLinkOf),
    };
  }

  async trace(context: CallContext, traceId: string): Promise<Record<string, unknown>> {
    return readTrace(this.dependencies.db, this.dependencies.runRecords, context, traceId);
  }

  /** An orchestrator's runner, which checks and runs its targets as its owner. */
  private assistantRunnerFor(nested: Omit<NestedRun, 'target'>, owner: Identity): AssistantRunner {
    const { context, orchestrator: record, requester, traffic, images } = nested;
    const { db, settings } = this.dependencies;
    return new AssistantToolRunner({
      db,
      orchestrator: record,
      owner,
      requestId: context.requestId,
      limits: {
        callsMaximum: settings.assistantToolCallsMaximum,
        totalMilliseconds: settings.assistantToolTotalMilliseconds,
        resultCharactersMaximum: settings.assistantToolResultCharactersMaximum,
      },
      runTarget: (target, query, signal) =>
        this.runTarget({ context, orchestrator: record, target, requester, traffic, images }, query, signal),
    });
  }

  /**
   * A target's own pipeline, for one user message, unable to call assistants itself. Its model
   * calls are counted as a usage row of their own: the request's user, the orchestrator (the
   * assistant the request was made to) and the target's model (docs/usage.md).
   */
  private async *runTarget(nested: NestedRun, query: string, signal: AbortSignal): AsyncGenerator<PipelineEvent> {
    const { context, orchestrator, target, requester, traffic, images } = nested;
    const owner = await this.contexts.ownerOf(target);
    const pipelineContext = await this.contexts.pipelineContextFor({
      record: target,
      assistant: snapshotOf(target),
      owner,
      requester,
      images,
      signal,
      assistants: NO_ASSISTANT_TOOLS,
      attribution: attributionOf(context, orchestrator, traffic),
    });
    const run: RunRecord = { context, record: orchestrator, snapshot: pipelineContext.assistant, traceId: undefined, signal, traffic };
    const events = runAssistant(
      { messages: [{ role: 'user', content: query }], parameters: {} },
      { ...pipelineContext, onTrace: (trace) => (run.trace = trace) },
    );
    yield* recordedRun(this.dependencies.runRecords, events, run);
  }
}
