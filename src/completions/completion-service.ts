/**
 * Chat completions as a service: resolves the model id a client sent to an assistant the caller
 * may chat with, builds the pipeline context (ports bound to the assistant owner, provider
 * settings, limits) and starts the run. The HTTP edge renders what it yields.
 */
import type { Kysely } from 'kysely';
import { identityOf } from '../auth/authenticator.js';
import type { CallContext } from '../auth/call-context.js';
import type { Identity } from '../auth/identity.js';
import { assistantListScope, requireAssistantAction } from '../auth/permissions.js';
import { assistantFacts, splitCollections } from '../assistants/assistant-view.js';
import type { AssistantMetadata } from '../assistants/metadata-normalizer.js';
import type { Settings } from '../config/settings.js';
import { AppError } from '../errors/app-error.js';
import type { AssistantSnapshot } from '../pipeline/assistant-snapshot.js';
import type { ProviderSettings } from '../pipeline/connector-definition.js';
import type { PipelineEvent } from '../pipeline/events.js';
import type { FileReader } from '../pipeline/ports.js';
import type { Registries } from '../pipeline/registries.js';
import { runAssistant, type PipelineRequest, type PipelineTrace } from '../pipeline/run-assistant.js';
import { findAssistant, findVisibleAssistantsByName, listAssistants, type AssistantRecord } from '../store/assistants-repository.js';
import type { Database } from '../store/schema.js';
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
  events: AsyncGenerator<PipelineEvent>;
}

export interface CompletionDependencies {
  db: Kysely<Database>;
  settings: Settings;
  registries: Registries;
  fileReaderFor(owner: Identity): FileReader;
  /** Receives the redacted trace of each run (stored for verbose assistants). */
  onTrace?(trace: PipelineTrace, context: CallContext): void;
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
    const candidates = id !== undefined
      ? [await findAssistant(db, id, context.identity.userId)].filter((record): record is AssistantRecord => record !== undefined)
      : await findVisibleAssistantsByName(db, assistantListScope(context.identity), context.identity.userId, modelId);
    if (candidates.length > 1) throw new AppError('ambiguous_model', `Several assistants are named "${modelId}"; use ${MODEL_ID_PREFIX}<id>.`, { param: 'model' });
    const record = candidates[0];
    const notFound = new AppError('model_not_found', `The model "${modelId}" does not exist or you do not have access to it.`, { param: 'model' });
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

  private provider(connectorName: string): ProviderSettings {
    const { settings } = this.dependencies;
    if (connectorName === 'openai') return { apiKey: settings.openaiApiKey, baseUrl: settings.openaiBaseUrl };
    if (connectorName === 'ollama') return { baseUrl: settings.ollamaBaseUrl };
    return {};
  }

  /** Starts a run; the events are produced as the caller iterates, and stop when `signal` aborts. */
  async start(context: CallContext, record: AssistantRecord, request: PipelineRequest, signal: AbortSignal): Promise<CompletionRun> {
    const owner = await findUserById(this.dependencies.db, record.owner_id);
    if (!owner) throw new AppError('model_not_found');
    const { settings, registries, fileReaderFor, onTrace } = this.dependencies;
    const events = runAssistant(request, {
      assistant: snapshotOf(record),
      registries,
      files: fileReaderFor(identityOf(owner, 'assistant_owner', 0)),
      provider: (connectorName) => this.provider(connectorName),
      signal,
      limits: { toolTimeoutMilliseconds: settings.toolTimeoutMilliseconds, upstreamTimeoutMilliseconds: settings.upstreamTimeoutMilliseconds },
      onTrace: onTrace && ((trace) => onTrace(trace, context)),
    });
    return { assistantId: record.id, events };
  }
}
