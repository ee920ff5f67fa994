/**
 * The pipeline context of one run: everything the pipeline core needs for one assistant, built
 * here so that the core never sees the store or the settings. Its ports (files, rubrics, knowledge)
 * are bound to the assistant's owner, so an assistant reads only what its owner may read; providers,
 * the small fast model and integrations come from the owner's organization, falling back to the
 * server's; limits come from the settings.
 */
import type { Kysely } from 'kysely';
import { identityOf } from '../auth/authenticator.js';
import type { CallContext } from '../auth/call-context.js';
import type { Identity } from '../auth/identity.js';
import type { AssistantSnapshot } from '../pipeline/assistant-metadata/assistant-snapshot.js';
import type { Settings } from '../config/settings.js';
import { AppError } from '../errors/app-error.js';
import type { MoodleSettings, WebSearchSettings } from '../organizations/provider-settings-service.js';
import { pluginsUsedBy, requireEnabledPlugins, type DisabledPlugins } from '../organizations/plugin-policy.js';
import type { ProviderSettings } from '../pipeline/plugin-contract/connector-definition.js';
import { isOrchestrator } from '../pipeline/assistant-metadata/metadata-normalizer.js';
import { serverFetch } from '../pipeline/upstream/outbound-fetch.js';
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
} from '../pipeline/plugin-contract/ports.js';
import { rewriteQuery } from '../pipeline/context-tools/query-rewriting.js';
import { NO_USAGE, type Usage } from '../pipeline/conversation/events.js';
import type { Registries } from '../pipeline/plugin-loading/registries.js';
import type { PipelineContext } from '../pipeline/run-assistant.js';
import type { AssistantRecord } from '../store/assistants-repository.js';
import type { HotReadCache } from '../store/hot-read-cache.js';
import type { RunRecordWriter } from './run-record-writer.js';
import type { QuotaRequest } from '../usage/quota-admission.js';
import { toolModelsFor } from './tool-models.js';
import { connectorNameOf } from '../pipeline/assistant-plan.js';
import { nowTimestamp, type Database } from '../store/schema.js';
import { findUserById } from '../store/users-repository.js';

/**
 * What the completion service is built from (src/services.ts wires it). The ports are properties
 * holding functions, not methods, so that they may be taken out of this object and called alone.
 */
export interface PipelineContextDependencies {
  db: Kysely<Database>;
  settings: Settings;
  registries: Registries;
  fileReaderFor: (owner: Identity) => FileReader;
  /** The owner's RubricReader: an assistant reads only the rubrics its owner may read. */
  rubricReaderFor: (owner: Identity) => RubricReader;
  /** The owner's KnowledgeSearch; its query embeddings are counted to the request's person and assistant. */
  knowledgeSearchFor: (owner: Identity, attribution?: UsageAttribution) => KnowledgeSearch;
  /** The owner organization's providers, resolved against the server's (URL, key and fetch together), by connector name. */
  providersFor: (organizationId: number) => Promise<(connectorName: string) => ProviderSettings>;
  /** The organization's small fast model, when it names one (rewrites `context_aware` queries). */
  smallFastModelFor: (organizationId: number) => Promise<{ connector: string; model: string } | undefined>;
  /** The organization's Moodle Web Services URL and token, when it sets them. */
  moodleFor: (organizationId: number) => Promise<MoodleSettings | undefined>;
  /** The organization's web search provider, when it sets a usable one. */
  webSearchFor: (organizationId: number) => Promise<WebSearchSettings | undefined>;
  /** The MCP servers of the owner's organization, with header templates filled for the person chatting. */
  mcpServersFor: (owner: Identity, requester: Requester) => McpServers;
  /** Where a run's image connector keeps images: the requester's files, tied to the web chat when there is one. */
  imageStoreFor: (requester: CallContext, chatId: number | undefined) => ImageStore;
  /** The plugins the organization has disabled: a run using one is refused (plugin-policy.ts). */
  disabledPluginsFor: (organizationId: number) => Promise<DisabledPlugins>;
  /** Assistant owners' identities by user id, for HOT_READ_CACHE_MS (docs/deployment.md, "Caches"). */
  owners: HotReadCache<number, Identity>;
  /** Writes each run's usage log and trace, in batches within RUN_RECORD_WINDOW_MS. */
  runRecords: RunRecordWriter;
  /** Admits a run under the token and cost quotas (429 quota_exceeded past one): its reservation's id, if any. */
  admitRun: (request: QuotaRequest) => Promise<number | undefined>;
}

/** Whom a run's model calls are counted for: the request's user and assistant (an orchestrator's, for a nested run). */
export interface UsageAttribution {
  organizationId: number;
  assistantId: number;
  userId: number;
  requestId: string | null;
  /** 'test' for an assistant's test runs: their usage rows are marked as test traffic (docs/assistant-tests.md). */
  traffic?: 'test' | undefined;
}

export interface PipelineContextOptions {
  record: AssistantRecord;
  /** The record read into the shape the core takes (snapshotOf), once per run. */
  assistant: AssistantSnapshot;
  /** Whom the run's side calls (query rewriting) are counted for. */
  attribution: UsageAttribution;
  /** The identity the assistant's tools act under: its owner's (see ownerOf). */
  owner: Identity;
  /** The person chatting, whom tools such as Moodle act for. */
  requester: Requester;
  signal: AbortSignal;
  /** An orchestrator's assistant-tool runner, or NO_ASSISTANT_TOOLS for any other run. */
  assistants: AssistantRunner;
  /** Where generated images are kept (the requester's files). */
  images: ImageStore;
}

/** A model call made beside the run's own. */
interface SideCall {
  connector: string;
  model: string;
  usage: Usage;
  durationMilliseconds: number;
  outcome: string;
}

export class PipelineContextBuilder {
  constructor(private readonly dependencies: PipelineContextDependencies) {}

  /** The identity an assistant's tools act under: its owner's. */
  async ownerOf(record: AssistantRecord): Promise<Identity> {
    const { db, owners } = this.dependencies;
    const cached = owners.get(record.owner_id);
    if (cached !== undefined) return cached;
    const owner = await findUserById(db, record.owner_id);
    if (!owner) throw new AppError('model_not_found');
    const identity = identityOf(owner, 'assistant_owner', 0);
    owners.set(record.owner_id, identity);
    return identity;
  }

  /**
   * Everything a pipeline run needs for one assistant: ports bound to its owner, the person
   * chatting, the organization's providers and integrations, and the limits.
   */
  async pipelineContextFor(options: PipelineContextOptions): Promise<PipelineContext> {
    const { record, assistant, owner, requester, signal, assistants, attribution, images } = options;
    const { settings, registries, fileReaderFor, rubricReaderFor, knowledgeSearchFor, providersFor } = this.dependencies;
    // Before anything runs, nested assistant tools included: each run of an assistant passes here.
    const canonicalToolName = (name: string): string => registries.tools.get(name)?.name ?? name;
    const disabled = await this.dependencies.disabledPluginsFor(record.organization_id);
    requireEnabledPlugins(pluginsUsedBy(assistant.metadata, canonicalToolName), disabled, 'chat');
    const providerFor = await providersFor(record.organization_id);
    // A call to another assistant runs a whole pipeline, so an orchestrator's calls get the assistant-tool timeout.
    const callTimeoutMilliseconds = isOrchestrator(assistant.metadata)
      ? settings.assistantToolTimeoutMilliseconds
      : settings.toolCallTimeoutMilliseconds;
    return {
      assistant,
      registries,
      files: fileReaderFor(owner),
      rubrics: rubricReaderFor(owner),
      knowledge: knowledgeSearchFor(owner, attribution),
      queryRewriter: this.queryRewriterFor(attribution, record.organization_id, providerFor),
      requester,
      integrations: await this.integrationsFor(record.organization_id),
      assistants,
      mcpServers: this.dependencies.mcpServersFor(owner, requester),
      models: toolModelsFor({
        settings,
        connectorFor: (name) => registries.connectors.get(name),
        providerFor,
        smallFastModel: () => this.dependencies.smallFastModelFor(record.organization_id),
        assistantModel: { connector: connectorNameOf(assistant.metadata), model: assistant.metadata.llm ?? '' },
        count: (call) => this.countSideCall(attribution, call),
      }),
      provider: providerFor,
      images,
      signal,
      limits: {
        toolTimeoutMilliseconds: settings.toolTimeoutMilliseconds,
        upstreamTimeoutMilliseconds: settings.upstreamTimeoutMilliseconds,
        toolLoop: {
          iterations: settings.toolLoopIterations,
          iterationsMaximum: settings.toolLoopIterationsMaximum,
          callTimeoutMilliseconds,
          callTimeoutMillisecondsMaximum: Math.max(callTimeoutMilliseconds, settings.toolCallTimeoutMillisecondsMaximum),
          totalMilliseconds: settings.toolLoopTotalMilliseconds,
          totalMillisecondsMaximum: settings.toolLoopTotalMillisecondsMaximum,
          identicalCallsMaximum: settings.toolIdenticalCallsMaximum,
          resultCharactersMaximum: settings.toolResultCharactersMaximum,
        },
      },
    };
  }

  /** Open-Meteo from the server's settings; Moodle from the organization's settings, else the server's, else none; web search and the entity graph's bounds from the organization's. */
  private async integrationsFor(organizationId: number): Promise<Integrations> {
    const { settings, moodleFor } = this.dependencies;
    const bounds = {
      timeoutMilliseconds: settings.integrationTimeoutMilliseconds,
      responseBytesMaximum: settings.integrationResponseBytesMaximum,
    };
    // The server's Moodle is the operator's choice and may be anywhere; the organization's is reached through the outbound guard.
    const serverMoodle =
      settings.moodleApiUrl !== undefined && settings.moodleToken !== undefined
        ? { apiUrl: settings.moodleApiUrl, token: settings.moodleToken, fetch: serverFetch }
        : undefined;
    const moodle = (await moodleFor(organizationId)) ?? serverMoodle;
    const webSearch = await this.webSearchFor(organizationId, bounds);
    // Without a small fast model no entity graph is built, so graph_search has nothing to walk.
    const entityGraph = (await this.dependencies.smallFastModelFor(organizationId)) !== undefined && {
      entityGraph: {
        depthMaximum: settings.graphSearchDepthMaximum,
        fanOutMaximum: settings.graphSearchFanOutMaximum,
        passagesMaximum: settings.graphSearchPassagesMaximum,
      },
    };
    return {
      weather: { geocodingUrl: settings.openMeteoGeocodingUrl, forecastUrl: settings.openMeteoForecastUrl, ...bounds },
      ...(moodle !== undefined && { moodle: { ...moodle, ...bounds } }),
      ...(webSearch !== undefined && { webSearch }),
      ...entityGraph,
    };
  }

  /** The organization's web search provider with this run's own budget of searches and pages, or undefined when it sets none. */
  private async webSearchFor(
    organizationId: number,
    bounds: { timeoutMilliseconds: number; responseBytesMaximum: number },
  ): Promise<Integrations['webSearch']> {
    const { settings } = this.dependencies;
    const stored = await this.dependencies.webSearchFor(organizationId);
    if (stored === undefined) return undefined;
    const { pageFetch, ...connection } = stored;
    return {
      ...connection,
      ...bounds,
      pages: {
        fetch: pageFetch,
        bytesMaximum: settings.webPageBytesMaximum,
        timeoutMilliseconds: settings.webPageTimeoutMilliseconds,
        redirectsMaximum: settings.webPageRedirectsMaximum,
        textCharactersMaximum: settings.webPageTextCharactersMaximum,
      },
      budget: { searches: settings.webSearchSearchesMaximum, pages: settings.webSearchPagesMaximum },
    };
  }

  /**
   * Looks the small fast model up only when a tool asks for a rewrite; no model, or an unknown
   * connector, means no rewrite. Each rewrite is counted as a usage row of its own, for the
   * request's user and assistant and the small fast model (docs/usage.md).
   */
  private queryRewriterFor(
    attribution: UsageAttribution,
    organizationId: number,
    providerFor: (connectorName: string) => ProviderSettings,
  ): QueryRewriter {
    const { settings, registries, smallFastModelFor } = this.dependencies;
    return {
      rewrite: async (messages, signal) => {
        const choice = await smallFastModelFor(organizationId);
        const connector = choice === undefined ? undefined : registries.connectors.get(choice.connector);
        if (choice === undefined || connector === undefined) return undefined;
        const model = { connector, model: choice.model, provider: providerFor(choice.connector) };
        const started = performance.now();
        let usage: Usage | undefined;
        const query = await rewriteQuery(model, messages, signal, {
          timeoutMilliseconds: settings.queryRewriteTimeoutMilliseconds,
          onUsage: (reported) => (usage = reported),
        });
        // A call that reported nothing and answered nothing (no conversation yet, a time-out) has nothing to count.
        if (usage !== undefined || query !== undefined)
          await this.countSideCall(attribution, {
            connector: choice.connector,
            model: choice.model,
            usage: usage ?? NO_USAGE,
            durationMilliseconds: Math.round(performance.now() - started),
            outcome: query === undefined ? 'failed:query_rewrite' : 'completed',
          });
        return query;
      },
    };
  }

  /** One usage row for a model call made beside the run's own (a rewrite); a row that cannot be kept does not fail the run. */
  private async countSideCall(attribution: UsageAttribution, call: SideCall): Promise<void> {
    await this.dependencies.runRecords
      .write({
        usage: {
          created_at: nowTimestamp(),
          organization_id: attribution.organizationId,
          user_id: attribution.userId,
          assistant_id: attribution.assistantId,
          connector: call.connector,
          model: call.model,
          prompt_tokens: call.usage.prompt_tokens,
          completion_tokens: call.usage.completion_tokens,
          total_tokens: call.usage.total_tokens,
          duration_ms: call.durationMilliseconds,
          outcome: call.outcome,
          request_id: attribution.requestId,
          traffic: attribution.traffic ?? null,
        },
      })
      .catch(() => undefined);
  }
}
