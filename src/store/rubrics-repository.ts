/** Rubrics (soft-deleted rows stay, with `deleted_at` set, and keep their rubric_id, which is unique within its organization). */
import type { Kysely } from 'kysely';
import type { RubricListScope } from './list-scopes.js';
import { containsText, searchText } from './search-pattern.js';
import { nowTimestamp, type Database, type NewRubricRow, type RubricRow, type RubricUpdate } from './schema.js';

export type RubricRecord = RubricRow & { owner_email: string };

function selectRubrics(db: Kysely<Database>) {
  return db
    .selectFrom('rubrics')
    .innerJoin('users', 'users.id', 'rubrics.owner_id')
    .selectAll('rubrics')
    .select('users.email as owner_email');
}

export async function insertRubric(db: Kysely<Database>, row: Omit<NewRubricRow, 'search_text'>): Promise<number> {
  const { id } = await db
    .insertInto('rubrics')
    .values({ ...row, search_text: searchText(row.title, row.description) })
    .returning('id')
    .executeTakeFirstOrThrow();
  return id;
}

/**
 * Finds a rubric by its public id within one organization (ids are unique per organization),
 * deleted or not; the permission module decides what a deleted one means.
 */
export async function findRubric(db: Kysely<Database>, organizationId: number, rubricId: string): Promise<RubricRecord | undefined> {
  return selectRubrics(db)
    .where('rubrics.organization_id', '=', organizationId)
    .where('rubrics.rubric_id', '=', rubricId)
    .executeTakeFirst();
}

/** Up to two rubrics holding this public id in any organization: enough to tell "one" from "several". */
export async function findRubricsInAnyOrganization(db: Kysely<Database>, rubricId: string): Promise<RubricRecord[]> {
  return selectRubrics(db).where('rubrics.rubric_id', '=', rubricId).orderBy('rubrics.id').limit(2).execute();
}

/** Whether any rubric of the organization, live or deleted, holds this public id. */
export async function rubricIdExists(db: Kysely<Database>, organizationId: number, rubricId: string): Promise<boolean> {
  const row = await db
    .selectFrom('rubrics')
    .select('id')
    .where('organization_id', '=', organizationId)
    .where('rubric_id', '=', rubricId)
    .executeTakeFirst();
  return row !== undefined;
}

export interface RubricListQuery {
  limit: number;
  offset: number;
  search: string | undefined;
}

function selectVisibleRubrics(db: Kysely<Database>, scope: RubricListScope) {
  const live = selectRubrics(db).where('rubrics.deleted_at', 'is', null);
  if (scope.kind === 'owner') return live.where('rubrics.owner_id', '=', scope.userId);
  if (scope.kind === 'organization') return live.where('rubrics.organization_id', '=', scope.organizationId);
  return live
    .where('rubrics.organization_id', '=', scope.organizationId)
    .where((eb) => eb.or([eb('rubrics.visibility', '=', 'organization'), eb('rubrics.owner_id', '=', scope.userId)]));
}

/** The live rubrics a scope lets the caller see, newest first, as the permission module defines the scope. */
export async function listRubrics(
  db: Kysely<Database>,
  scope: RubricListScope,
  query: RubricListQuery,
): Promise<{ items: RubricRecord[]; total: number }> {
  let filtered = selectVisibleRubrics(db, scope);
  if (query.search !== undefined) filtered = filtered.where(containsText('rubrics.search_text', query.search));
  const items = await filtered.orderBy('rubrics.id', 'desc').limit(query.limit).offset(query.offset).execute();
  const { total } = await filtered
    .clearSelect()
    .select((eb) => eb.fn.countAll().as('total'))
    .executeTakeFirstOrThrow();
  return { items, total: Number(total) };
}

/** Applies the changes to a live `current`, keeping its search text in step with its title and description. */
export async function updateRubric(
  db: Kysely<Database>,
  current: Pick<RubricRow, 'id' | 'title' | 'description'>,
  changes: Omit<RubricUpdate, 'search_text'>,
): Promise<boolean> {
  const renamed = changes.title !== undefined || changes.description !== undefined;
  const search = renamed ? { search_text: searchText(changes.title ?? current.title, changes.description ?? current.description) } : {};
  const result = await db
    .updateTable('rubrics')
    .set({ ...changes, ...search, updated_at: nowTimestamp() })
    .where('id', '=', current.id)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}
