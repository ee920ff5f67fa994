/**
 * Chat completions as a service: resolves the model id a client sent to an assistant the caller
 * may chat with, builds the pipeline context (ports bound to the assistant owner, provider
 * settings, limits) and starts the run. The HTTP edge renders what it yields.
 */
import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import { identityOf } from '../auth/authenticator.js';
import type { CallContext } from '../auth/call-context.js';
import type { Identity } from '../auth/identity.js';
import { assistantListScope, requireAssistantAction, requireTraceAccess } from '../auth/permissions.js';
import { assistantFacts, splitCollections } from '../assistants/assistant-view.js';
import { isOrchestrator, type AssistantMetadata } from '../pipeline/metadata-normalizer.js';
import type { Settings } from '../config/settings.js';
import { AppError } from '../errors/app-error.js';
import { serverFetch, type OutboundFetch } from '../pipeline/outbound-fetch.js';
import { AssistantToolRunner, NO_ASSISTANT_TOOLS } from './assistant-tool-runner.js';
import type { AssistantSnapshot } from '../pipeline/assistant-snapshot.js';
import type { ProviderSettings } from '../pipeline/connector-definition.js';
import { NO_USAGE, type PipelineEvent, type Usage } from '../pipeline/events.js';
import type {
  AssistantRunner,
  FileReader,
  Integrations,
  KnowledgeSearch,
  QueryRewriter,
  Requester,
  RubricReader,
} from '../pipeline/ports.js';
import { rewriteQuery } from '../pipeline/query-rewriting.js';
import type { Registries } from '../pipeline/registries.js';
import { runAssistant, type PipelineContext, type PipelineRequest, type PipelineTrace } from '../pipeline/run-assistant.js';
import { findAssistant, findVisibleAssistantsByName, listAssistants, type AssistantRecord } from '../store/assistants-repository.js';
import { nowTimestamp, type Database } from '../store/schema.js';
import { findTrace, insertTrace } from '../store/traces-repository.js';
import { insertUsageLog } from '../store/usage-logs-repository.js';
import { findUserById } from '../store/users-repository.js';

export const MODEL_ID_PREFIX = 'lamb_assistant.';
/** /v1/models lists at most this many assistants. */
const MODELS_LIST_MAXIMUM = 1_000;

export interface ModelEntry {
  id: string;
  name: string;
  owner: string;
  created: number;
}

export interface CompletionRun {
  assistantId: number;
  /** Set when the assistant is verbose: the id its trace is stored under. */
  traceId: string | undefined;
  events: AsyncGenerator<PipelineEvent>;
}

interface RunRecord {
  context: CallContext;
  record: AssistantRecord;
  snapshot: AssistantSnapshot;
  traceId: string | undefined;
  signal: AbortSignal;
  trace?: PipelineTrace;
}

export interface CompletionDependencies {
  db: Kysely<Database>;
  settings: Settings;
  registries: Registries;
  fileReaderFor(owner: Identity): FileReader;
  /** The owner's RubricReader: an assistant reads only the rubrics its owner may read. */
  rubricReaderFor(owner: Identity): RubricReader;
  knowledgeSearchFor(owner: Identity): KnowledgeSearch;
  /** The owner organization's providers, resolved against the server's (URL, key and fetch together), by connector name. */
  providersFor(organizationId: number): Promise<(connectorName: string) => ProviderSettings>;
  /** The organization's small fast model, when it names one (rewrites `context_aware` queries). */
  smallFastModelFor(organizationId: number): Promise<{ connector: string; model: string } | undefined>;
  /** The organization's Moodle Web Services URL and token, when it sets them. */
  moodleFor(organizationId: number): Promise<{ apiUrl: string; token: string; fetch: OutboundFetch } | undefined>;
}

function assistantIdOf(modelId: string): number | undefined {
  const text = modelId.startsWith(MODEL_ID_PREFIX) ? modelId.slice(MODEL_ID_PREFIX.length) : modelId;
  if (!/^\d{1,10}$/.test(text)) return undefined;
  const id = Number(text);
  return id >= 1 && id <= 2_147_483_647 ? id : undefined;
}

export function snapshotOf(record: AssistantRecord): AssistantSnapshot {
  return {
    id: record.id,
    name: record.name,
    ownerId: record.owner_id,
    organizationId: record.organization_id,
    systemPrompt: record.system_prompt,
    promptTemplate: record.prompt_template,
    metadata: JSON.parse(record.metadata) as AssistantMetadata,
    ragCollections: splitCollections(record.rag_collections),
    ragTopK: record.rag_top_k,
  };
}

export class CompletionService {
  constructor(private readonly dependencies: CompletionDependencies) {}

  /** The assistant a model id names, if the caller may chat with it; 404 model_not_found otherwise. */
  async resolveModel(context: CallContext, modelId: string): Promise<AssistantRecord> {
    const { db } = this.dependencies;
    const id = assistantIdOf(modelId);
    const candidates =
      id !== undefined
        ? [await findAssistant(db, id, context.identity.userId)].filter((record): record is AssistantRecord => record !== undefined)
        : await findVisibleAssistantsByName(db, assistantListScope(context.identity), context.identity.userId, modelId);
    if (candidates.length > 1)
      throw new AppError('ambiguous_model', `Several assistants are named "${modelId}"; use ${MODEL_ID_PREFIX}<id>.`, { param: 'model' });
    const record = candidates[0];
    const notFound = new AppError('model_not_found', `The model "${modelId}" does not exist or you do not have access to it.`, {
      param: 'model',
    });
    if (!record) throw notFound;
    try {
      requireAssistantAction(context.identity, assistantFacts(record), 'chat');
    } catch {
      throw notFound;
    }
    return record;
  }

  async listModels(context: CallContext): Promise<ModelEntry[]> {
    const page = await listAssistants(this.dependencies.db, assistantListScope(context.identity), context.identity.userId, {
      limit: MODELS_LIST_MAXIMUM,
      offset: 0,
      search: undefined,
      type: undefined,
    });
    return page.items.map((record) => ({
      id: `${MODEL_ID_PREFIX}${record.id}`,
      name: record.name,
      owner: record.owner_email,
      created: Math.floor(Date.parse(record.created_at) / 1000),
    }));
  }

  /** Open-Meteo from the server's settings; Moodle from the organization's settings, else the server's, else none. */
  private async integrationsFor(organizationId: number): Promise<Integrations> {
    const { settings, moodleFor } = this.dependencies;
    const timeoutMilliseconds = settings.integrationTimeoutMilliseconds;
    // The server's Moodle is the operator's choice and may be anywhere; the organization's is reached through the outbound guard.
    const serverMoodle =
      settings.moodleApiUrl !== undefined && settings.moodleToken !== undefined
        ? { apiUrl: settings.moodleApiUrl, token: settings.moodleToken, fetch: serverFetch }
        : undefined;
    const moodle = (await moodleFor(organizationId)) ?? serverMoodle;
    return {
      weather: { geocodingUrl: settings.openMeteoGeocodingUrl, forecastUrl: settings.openMeteoForecastUrl, timeoutMilliseconds },
      ...(moodle !== undefined && { moodle: { ...moodle, timeoutMilliseconds } }),
    };
  }

  /** Looks the small fast model up only when a tool asks for a rewrite; no model, or an unknown connector, means no rewrite. */
  private queryRewriterFor(organizationId: number, providerFor: (connectorName: string) => ProviderSettings): QueryRewriter {
    const { settings, registries, smallFastModelFor } = this.dependencies;
    return {
      rewrite: async (messages, signal) => {
        const choice = await smallFastModelFor(organizationId);
        const connector = choice === undefined ? undefined : registries.connectors.get(choice.connector);
        if (choice === undefined || connector === undefined) return undefined;
        const model = { connector, model: choice.model, provider: providerFor(choice.connector) };
        return rewriteQuery(model, messages, signal, settings.queryRewriteTimeoutMilliseconds);
      },
    };
  }

  /**
   * Everything a pipeline run needs for one assistant: ports bound to its owner, the person
   * chatting, the organization's providers and integrations, and the limits.
   */
  private async pipelineContextFor(
    record: AssistantRecord,
    ownerIdentity: Identity,
    requester: Requester,
    signal: AbortSignal,
    assistants: AssistantRunner,
  ): Promise<PipelineContext> {
    const { settings, registries, fileReaderFor, rubricReaderFor, knowledgeSearchFor, providersFor } = this.dependencies;
    const providerFor = await providersFor(record.organization_id);
    const assistant = snapshotOf(record);
    // A call to another assistant runs a whole pipeline, so an orchestrator's calls get the assistant-tool timeout.
    const callTimeoutMilliseconds = isOrchestrator(assistant.metadata)
      ? settings.assistantToolTimeoutMilliseconds
      : settings.toolCallTimeoutMilliseconds;
    return {
      assistant,
      registries,
      files: fileReaderFor(ownerIdentity),
      rubrics: rubricReaderFor(ownerIdentity),
      knowledge: knowledgeSearchFor(ownerIdentity),
      queryRewriter: this.queryRewriterFor(record.organization_id, providerFor),
      requester,
      integrations: await this.integrationsFor(record.organization_id),
      assistants,
      provider: providerFor,
      signal,
      limits: {
        toolTimeoutMilliseconds: settings.toolTimeoutMilliseconds,
        upstreamTimeoutMilliseconds: settings.upstreamTimeoutMilliseconds,
        toolLoop: {
          iterations: settings.toolLoopIterations,
          iterationsMaximum: settings.toolLoopIterationsMaximum,
          callTimeoutMilliseconds,
          callTimeoutMaximumMilliseconds: Math.max(callTimeoutMilliseconds, settings.toolCallTimeoutMillisecondsMaximum),
          totalMilliseconds: settings.toolLoopTotalMilliseconds,
          totalMaximumMilliseconds: settings.toolLoopTotalMillisecondsMaximum,
          identicalCallsMaximum: settings.toolIdenticalCallsMaximum,
          resultCharactersMaximum: settings.toolResultCharactersMaximum,
        },
      },
    };
  }

  /** The identity an assistant's tools act under: its owner's. */
  private async ownerOf(record: AssistantRecord): Promise<Identity> {
    const owner = await findUserById(this.dependencies.db, record.owner_id);
    if (!owner) throw new AppError('model_not_found');
    return identityOf(owner, 'assistant_owner', 0);
  }

  /** An orchestrator's runner checks and runs its targets as its owner; anything else may not call assistants. */
  private assistantRunnerFor(context: CallContext, record: AssistantRecord, owner: Identity, requester: Requester): AssistantRunner {
    if (!isOrchestrator(snapshotOf(record).metadata)) return NO_ASSISTANT_TOOLS;
    const { settings } = this.dependencies;
    return new AssistantToolRunner({
      db: this.dependencies.db,
      orchestrator: record,
      owner,
      requestId: context.requestId,
      limits: {
        callsMaximum: settings.assistantToolCallsMaximum,
        totalMilliseconds: settings.assistantToolTotalMilliseconds,
        resultCharactersMaximum: settings.assistantToolResultCharactersMaximum,
      },
      runTarget: (target, query, signal) => this.runTarget(target, query, requester, signal),
    });
  }

  /** A target's own pipeline, for one user message, unable to call assistants itself. */
  private async *runTarget(
    target: AssistantRecord,
    query: string,
    requester: Requester,
    signal: AbortSignal,
  ): AsyncGenerator<PipelineEvent> {
    const context = await this.pipelineContextFor(target, await this.ownerOf(target), requester, signal, NO_ASSISTANT_TOOLS);
    yield* runAssistant({ messages: [{ role: 'user', content: query }], parameters: {} }, context);
  }

  /**
   * Starts a run; the events are produced as the caller iterates, and stop when `signal` aborts.
   * `forwardedEmail`: the learner a trusted front end names (see trustedForwardedEmail in the HTTP layer).
   */
  async start(
    context: CallContext,
    record: AssistantRecord,
    request: PipelineRequest,
    signal: AbortSignal,
    forwardedEmail?: string,
  ): Promise<CompletionRun> {
    const requester: Requester = { userId: context.identity.userId, email: forwardedEmail ?? context.identity.email };
    const owner = await this.ownerOf(record);
    const assistants = this.assistantRunnerFor(context, record, owner, requester);
    const pipelineContext = await this.pipelineContextFor(record, owner, requester, signal, assistants);
    const run: RunRecord = {
      context,
      record,
      snapshot: pipelineContext.assistant,
      traceId: pipelineContext.assistant.metadata.verbose === true ? randomUUID() : undefined,
      signal,
    };
    const events = runAssistant(request, { ...pipelineContext, onTrace: (trace) => (run.trace = trace) });
    return { assistantId: record.id, traceId: run.traceId, events: this.recorded(events, run) };
  }

  /** Passes the events on; when the run ends, however it ends, writes its usage row and (if verbose) its trace. */
  private async *recorded(events: AsyncGenerator<PipelineEvent>, run: RunRecord): AsyncGenerator<PipelineEvent> {
    const started = performance.now();
    let usage: Usage = NO_USAGE;
    let outcome = 'cancelled';
    try {
      for await (const event of events) {
        if (event.type === 'usage') usage = event.usage;
        yield event;
      }
      outcome = 'completed';
    } catch (error) {
      outcome = run.signal.aborted ? 'cancelled' : `failed:${error instanceof AppError ? error.code : 'internal_error'}`;
      throw error;
    } finally {
      // A run that did not complete never yields its usage event; its trace kept what the provider reported.
      const usageUsed = outcome === 'completed' ? usage : (run.trace?.usage ?? usage);
      try {
        await this.persist(run, usageUsed, outcome, Math.round(performance.now() - started));
      } catch (persistError) {
        // A failed run keeps its own error; a completed one reports that its record could not be kept.
        if (outcome === 'completed') throw persistError;
      }
    }
  }

  private async persist(run: RunRecord, usage: Usage, outcome: string, durationMilliseconds: number): Promise<void> {
    const { db } = this.dependencies;
    const createdAt = nowTimestamp();
    await insertUsageLog(db, {
      created_at: createdAt,
      organization_id: run.record.organization_id,
      user_id: run.context.identity.userId,
      assistant_id: run.record.id,
      connector: run.trace?.connector ?? run.snapshot.metadata.connector ?? 'openai',
      model: run.trace?.model ?? run.snapshot.metadata.llm ?? '',
      prompt_tokens: usage.prompt_tokens,
      completion_tokens: usage.completion_tokens,
      total_tokens: usage.total_tokens,
      duration_ms: durationMilliseconds,
      outcome,
      request_id: run.context.requestId,
    });
    if (run.traceId === undefined || run.trace === undefined) return;
    await insertTrace(db, {
      id: run.traceId,
      created_at: createdAt,
      assistant_id: run.record.id,
      owner_id: run.record.owner_id,
      organization_id: run.record.organization_id,
      caller_user_id: run.context.identity.userId,
      request_id: run.context.requestId,
      trace: JSON.stringify({ ...run.trace, outcome, durationMilliseconds }),
    });
  }

  async trace(context: CallContext, traceId: string): Promise<Record<string, unknown>> {
    const row = await findTrace(this.dependencies.db, traceId);
    if (!row) throw new AppError('not_found', 'Trace not found.');
    requireTraceAccess(context.identity, { assistantOwnerId: row.owner_id, organizationId: row.organization_id });
    return { id: row.id, created_at: row.created_at, assistant_id: row.assistant_id, request_id: row.request_id, ...JSON.parse(row.trace) };
  }
}
