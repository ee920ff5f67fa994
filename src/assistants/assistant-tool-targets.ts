/**
 * Which assistants an orchestrator may use as assistant tools, checked as the orchestrator's owner
 * would use them (DESIGN §1): the save-time check that refuses a target that does not exist, is the
 * assistant itself, is not the owner's to use or is an orchestrator, and the list of candidates the
 * editor offers. The permission module decides each target; this module finds the facts it needs.
 */
import type { Kysely } from 'kysely';
import { identityOf } from '../auth/authenticator.js';
import type { Identity } from '../auth/identity.js';
import { assistantListScope, decideAssistantTool, type AssistantToolRefusal } from '../auth/permissions.js';
import { AppError } from '../errors/app-error.js';
import { assistantToolTargets, isOrchestrator, type AssistantMetadata } from '../pipeline/assistant-metadata/metadata-normalizer.js';
import { findAssistant, listAssistants, type AssistantRecord } from '../store/assistants-repository.js';
import type { Database } from '../store/schema.js';
import { findUserById } from '../store/users-repository.js';
import type { FieldProblem } from '../validation/json-schema-problems.js';
import { assistantFacts } from './assistant-view.js';

/** One assistant the owner of an orchestrator could pick as an assistant tool, and whether they may. */
export interface ToolCandidateView {
  id: number;
  name: string;
  description: string;
  owner: string;
  available: boolean;
  reason?: Exclude<AssistantToolRefusal, 'not_found'>;
}

/** The most assistants `GET /api/assistants/{id}/tool-candidates` looks at; `truncated` says when there were more. */
export const TOOL_CANDIDATES_MAXIMUM = 500;
const TOOL_CANDIDATES_PAGE_SIZE = 100;

/** Why a save-time check refuses a target. not_found and not_permitted read alike, so ids of assistants the owner cannot see are not revealed. */
function targetRefusalMessage(path: string, targetId: number, refusal: AssistantToolRefusal, owner: Identity): string {
  switch (refusal) {
    case 'self':
      return `${path} names assistant ${targetId}, which is this assistant itself; an assistant cannot use itself as a tool.`;
    case 'orchestrator':
      return `${path} names assistant ${targetId}, which uses other assistants itself (it is an orchestrator), so it cannot be used as a tool.`;
    case 'not_found':
    case 'not_permitted':
      return `${path} names assistant ${targetId}, which does not exist or which this assistant's owner (${owner.email}) may not use: it is not theirs, not shared with them, and not published to their organization.`;
  }
}

/** What the permission module needs to know of a stored assistant to decide whether it may be a target. */
function targetFacts(record: AssistantRecord) {
  return { ...assistantFacts(record), id: record.id, orchestrator: isOrchestrator(JSON.parse(record.metadata) as AssistantMetadata) };
}

/** The identity an assistant's tools are checked as: its stored owner, as the completion service runs them. */
export async function assistantOwnerIdentity(db: Kysely<Database>, record: AssistantRecord): Promise<Identity> {
  const owner = await findUserById(db, record.owner_id);
  if (!owner) throw new AppError('internal_error', `The owner of assistant ${record.id} does not exist.`);
  return identityOf(owner, 'assistant_owner', 0);
}

async function targetRefusal(
  db: Kysely<Database>,
  owner: Identity,
  targetId: number,
  assistantId: number | undefined,
): Promise<AssistantToolRefusal | undefined> {
  // An assistant not stored yet has no id, so no target can be itself.
  const orchestratorId = assistantId ?? 0;
  const record = await findAssistant(db, targetId, owner.userId);
  return decideAssistantTool(owner, record === undefined ? undefined : targetFacts(record), orchestratorId);
}

/**
 * Throws 400 `invalid_metadata` (param: the first refused `metadata.tools[i].assistant_id`,
 * details.errors: every one) unless the owner may use every enabled assistant tool's target.
 * `assistantId` is undefined for an assistant not stored yet.
 */
export async function requireUsableTargets(
  db: Kysely<Database>,
  metadata: AssistantMetadata,
  owner: Identity,
  assistantId: number | undefined,
): Promise<void> {
  const problems: FieldProblem[] = [];
  for (const { index, assistantId: targetId } of assistantToolTargets(metadata)) {
    const refusal = await targetRefusal(db, owner, targetId, assistantId);
    if (refusal === undefined) continue;
    const path = `metadata.tools[${index}].assistant_id`;
    problems.push({ path, message: targetRefusalMessage(path, targetId, refusal, owner) });
  }
  const first = problems[0];
  if (first) throw new AppError('invalid_metadata', first.message, { param: first.path, details: { errors: problems } });
}

/** The owner's list scope, page by page, up to TOOL_CANDIDATES_MAXIMUM; `total` is how many the scope holds. */
async function candidateRecords(db: Kysely<Database>, owner: Identity): Promise<{ records: AssistantRecord[]; total: number }> {
  const scope = assistantListScope(owner);
  const records: AssistantRecord[] = [];
  let total = 0;
  while (records.length < TOOL_CANDIDATES_MAXIMUM) {
    const limit = Math.min(TOOL_CANDIDATES_PAGE_SIZE, TOOL_CANDIDATES_MAXIMUM - records.length);
    const page = await listAssistants(db, scope, owner.userId, {
      limit,
      offset: records.length,
      search: undefined,
      type: undefined,
    });
    records.push(...page.items);
    total = page.total;
    if (page.items.length < limit) break;
  }
  return { records, total };
}

/**
 * Every assistant `owner` can see (the list scope of GET /api/assistants, up to
 * TOOL_CANDIDATES_MAXIMUM), and whether it may be one of assistant `assistantId`'s assistant
 * tools: available ones first, then the others with the reason.
 */
export async function toolCandidatesOf(
  db: Kysely<Database>,
  owner: Identity,
  assistantId: number,
): Promise<{ items: ToolCandidateView[]; truncated: boolean }> {
  const { records, total } = await candidateRecords(db, owner);
  const candidates = records.flatMap((candidate): ToolCandidateView[] => {
    const refusal = decideAssistantTool(owner, targetFacts(candidate), assistantId);
    // A listed assistant is live; should one be deleted between the pages, it is simply left out.
    if (refusal === 'not_found') return [];
    const view = { id: candidate.id, name: candidate.name, description: candidate.description, owner: candidate.owner_email };
    return [refusal === undefined ? { ...view, available: true } : { ...view, available: false, reason: refusal }];
  });
  return {
    items: [...candidates.filter((candidate) => candidate.available), ...candidates.filter((candidate) => !candidate.available)],
    truncated: total > records.length,
  };
}
