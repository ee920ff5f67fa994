/** Assistants (soft-deleted rows stay, with `deleted_at` set) and their shares. */
import type { Kysely } from 'kysely';
import type { AssistantListScope } from './list-scopes.js';
import { precompiledQuery } from './precompiled-query.js';
import { containsText, searchText } from './search-pattern.js';
import { nowTimestamp, type AssistantRow, type AssistantUpdate, type Database, type NewAssistantRow } from './schema.js';

export type AssistantRecord = AssistantRow & {
  owner_email: string;
  owner_name: string;
  shared_with_caller: boolean;
  shared_with_count: number;
};

function selectAssistants(db: Kysely<Database>, callerId: number) {
  return db
    .selectFrom('assistants')
    .innerJoin('users', 'users.id', 'assistants.owner_id')
    .selectAll('assistants')
    .select(['users.email as owner_email', 'users.name as owner_name'])
    .select((eb) =>
      eb
        .exists(
          eb
            .selectFrom('assistant_shares')
            .select('assistant_shares.id')
            .whereRef('assistant_shares.assistant_id', '=', 'assistants.id')
            .where('assistant_shares.user_id', '=', callerId),
        )
        .as('shared_with_caller'),
    )
    .select((eb) =>
      eb
        .selectFrom('assistant_shares')
        .select((count) => count.fn.countAll().as('shares'))
        .whereRef('assistant_shares.assistant_id', '=', 'assistants.id')
        .as('shared_with_count'),
    );
}

function toRecord(
  row: AssistantRow & { owner_email: string; owner_name: string; shared_with_caller: unknown; shared_with_count: unknown },
): AssistantRecord {
  // SQLite answers EXISTS with 0/1, PostgreSQL with a boolean; PostgreSQL counts as a bigint string.
  return { ...row, shared_with_caller: Boolean(row.shared_with_caller), shared_with_count: Number(row.shared_with_count ?? 0) };
}

export async function insertAssistant(db: Kysely<Database>, row: Omit<NewAssistantRow, 'search_text'>): Promise<number> {
  const { id } = await db
    .insertInto('assistants')
    .values({ ...row, search_text: searchText(row.name, row.description) })
    .returning('id')
    .executeTakeFirstOrThrow();
  return id;
}

// Every chat request looks its assistant up: compiled once (precompiled-query.ts).
const selectAssistantById = precompiledQuery(['id', 'callerId'], (db: Kysely<Database>, { id, callerId }) =>
  selectAssistants(db, callerId).where('assistants.id', '=', id),
);

/** Finds an assistant, deleted or not, with whether it is shared with the caller. */
export async function findAssistant(db: Kysely<Database>, id: number, callerId: number): Promise<AssistantRecord | undefined> {
  const [row] = await selectAssistantById(db, { id, callerId });
  return row && toRecord(row);
}

export interface AssistantListQuery {
  limit: number;
  offset: number;
  search: string | undefined;
  /** `orchestrator` narrows to multi-tool assistants with an enabled assistant tool; `multi_tool` includes them. */
  type: 'classic' | 'multi_tool' | 'orchestrator' | undefined;
}

/** The live assistants a scope lets the caller see, as the permission module defines the scope. */
function selectVisibleAssistants(db: Kysely<Database>, scope: AssistantListScope, callerId: number) {
  const live = selectAssistants(db, callerId).where('assistants.deleted_at', 'is', null);
  if (scope.kind === 'all') return live;
  if (scope.kind === 'organization') return live.where('assistants.organization_id', '=', scope.organizationId);
  return live.where((eb) =>
    eb.or([
      eb('assistants.owner_id', '=', scope.userId),
      eb('assistants.id', 'in', eb.selectFrom('assistant_shares').select('assistant_id').where('user_id', '=', scope.userId)),
      eb.and([eb('assistants.published', '=', 1), eb('assistants.organization_id', '=', scope.organizationId)]),
    ]),
  );
}

/** Visible assistants with exactly this name (model ids may be names, as in LAMB). */
export async function findVisibleAssistantsByName(
  db: Kysely<Database>,
  scope: AssistantListScope,
  callerId: number,
  name: string,
): Promise<AssistantRecord[]> {
  const rows = await selectVisibleAssistants(db, scope, callerId)
    .where('assistants.name', '=', name)
    .orderBy('assistants.id')
    .limit(2)
    .execute();
  return rows.map(toRecord);
}

export async function listAssistants(
  db: Kysely<Database>,
  scope: AssistantListScope,
  callerId: number,
  query: AssistantListQuery,
): Promise<{ items: AssistantRecord[]; total: number }> {
  let filtered = selectVisibleAssistants(db, scope, callerId);
  if (query.type === 'orchestrator') filtered = filtered.where('assistants.orchestrator', '=', 1);
  else if (query.type !== undefined) filtered = filtered.where('assistants.assistant_type', '=', query.type);
  if (query.search !== undefined) filtered = filtered.where(containsText('assistants.search_text', query.search));
  const rows = await filtered.orderBy('assistants.id', 'desc').limit(query.limit).offset(query.offset).execute();
  const { total } = await filtered
    .clearSelect()
    .select((eb) => eb.fn.countAll().as('total'))
    .executeTakeFirstOrThrow();
  return { items: rows.map(toRecord), total: Number(total) };
}

/** Applies the changes to `current`, keeping its search text in step with its name and description. */
export async function updateAssistant(
  db: Kysely<Database>,
  current: Pick<AssistantRow, 'id' | 'name' | 'description'>,
  changes: Omit<AssistantUpdate, 'search_text'>,
): Promise<void> {
  const renamed = changes.name !== undefined || changes.description !== undefined;
  const search = renamed ? { search_text: searchText(changes.name ?? current.name, changes.description ?? current.description) } : {};
  await db
    .updateTable('assistants')
    .set({ ...changes, ...search, updated_at: nowTimestamp() })
    .where('id', '=', current.id)
    .execute();
}

export interface ShareRecord {
  userId: number;
  email: string;
}

export async function listShares(db: Kysely<Database>, assistantId: number): Promise<ShareRecord[]> {
  const rows = await db
    .selectFrom('assistant_shares')
    .innerJoin('users', 'users.id', 'assistant_shares.user_id')
    .select(['users.id as userId', 'users.email as email'])
    .where('assistant_shares.assistant_id', '=', assistantId)
    .orderBy('users.email')
    .execute();
  return rows;
}

/** Makes the share set exactly `userIds`; call it inside a transaction. */
export async function replaceShares(db: Kysely<Database>, assistantId: number, userIds: number[], sharedByUserId: number): Promise<void> {
  await db.deleteFrom('assistant_shares').where('assistant_id', '=', assistantId).execute();
  if (userIds.length === 0) return;
  const timestamp = nowTimestamp();
  await db
    .insertInto('assistant_shares')
    .values(
      userIds.map((userId) => ({ assistant_id: assistantId, user_id: userId, shared_by_user_id: sharedByUserId, created_at: timestamp })),
    )
    .execute();
}
