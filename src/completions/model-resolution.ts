/**
 * Model ids as OpenAI clients see them: which assistant a model id a client sent names (only one
 * the caller may chat with, so a hidden assistant looks exactly like a missing one), and the list
 * `/v1/models` shows. LAMB's `lamb_assistant.<id>` form and a bare assistant name both work.
 */
import type { Kysely } from 'kysely';
import type { CallContext } from '../auth/call-context.js';
import { assistantListScope, requireAssistantAction } from '../auth/permissions.js';
import { assistantFacts } from '../assistants/assistant-view.js';
import { AppError } from '../errors/app-error.js';
import { findAssistant, findVisibleAssistantsByName, listAssistants, type AssistantRecord } from '../store/assistants-repository.js';
import type { Database } from '../store/schema.js';

export const MODEL_ID_PREFIX = 'lamb_assistant.';
/** /v1/models lists at most this many assistants. */
const MODELS_LIST_MAXIMUM = 1_000;
/** The largest id a PostgreSQL `integer` column holds: a larger number cannot name an assistant. */
const ASSISTANT_ID_MAXIMUM = 2_147_483_647;

export interface ModelEntry {
  id: string;
  name: string;
  /** The assistant's description, as Open WebUI shows under the name; empty when it has none. */
  description: string;
  /** The owner's display name: never their email, which learners have no need of. */
  owner: string;
  created: number;
}

function assistantIdOf(modelId: string): number | undefined {
  const text = modelId.startsWith(MODEL_ID_PREFIX) ? modelId.slice(MODEL_ID_PREFIX.length) : modelId;
  if (!/^\d{1,10}$/.test(text)) return undefined;
  const id = Number(text);
  return id >= 1 && id <= ASSISTANT_ID_MAXIMUM ? id : undefined;
}

/** The assistant a model id names, if the caller may chat with it; 404 model_not_found otherwise. */
export async function resolveModel(db: Kysely<Database>, context: CallContext, modelId: string): Promise<AssistantRecord> {
  const id = assistantIdOf(modelId);
  const candidates =
    id !== undefined
      ? [await findAssistant(db, id, context.identity.userId)].filter((record): record is AssistantRecord => record !== undefined)
      : await findVisibleAssistantsByName(db, assistantListScope(context.identity), context.identity.userId, modelId);
  if (candidates.length > 1)
    throw new AppError('ambiguous_model', `Several assistants are named "${modelId}"; use ${MODEL_ID_PREFIX}<id>.`, { param: 'model' });
  const record = candidates[0];
  // Made only when it is thrown: an error built on every request cost its stack trace each time.
  const notFound = (): AppError =>
    new AppError('model_not_found', `The model "${modelId}" does not exist or you do not have access to it.`, { param: 'model' });
  if (!record) throw notFound();
  try {
    requireAssistantAction(context.identity, assistantFacts(record), 'chat');
  } catch {
    throw notFound();
  }
  return record;
}

/** The assistants the caller sees, as OpenAI model entries. */
export async function listModels(db: Kysely<Database>, context: CallContext): Promise<ModelEntry[]> {
  const page = await listAssistants(db, assistantListScope(context.identity), context.identity.userId, {
    limit: MODELS_LIST_MAXIMUM,
    offset: 0,
    search: undefined,
    type: undefined,
  });
  return page.items.map((record) => ({
    id: `${MODEL_ID_PREFIX}${record.id}`,
    name: record.name,
    description: record.description,
    owner: record.owner_name,
    created: Math.floor(Date.parse(record.created_at) / 1000),
  }));
}
