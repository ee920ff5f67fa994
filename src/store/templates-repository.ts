/** Templates of the library and their tags (docs/templates.md); a template's tags are written with it, in one transaction. */
import type { Kysely } from 'kysely';
import type { TemplateListScope } from './list-scopes.js';
import { containsText, searchText } from './search-pattern.js';
import { nowTimestamp, type Database, type NewTemplateRow, type TemplateRow, type TemplateUpdate } from './schema.js';

export type TemplateRecord = TemplateRow & { owner_email: string; tags: string[] };

/** A new template as the service hands it over: the row without its search text, and its tags. */
export type NewTemplate = Omit<NewTemplateRow, 'search_text' | 'description'> & { description: string; tags: readonly string[] };

function selectTemplates(db: Kysely<Database>) {
  return db
    .selectFrom('templates')
    .innerJoin('users', 'users.id', 'templates.owner_id')
    .selectAll('templates')
    .select('users.email as owner_email');
}

/** The tags of each template, in one query for a whole page. */
async function tagsOf(db: Kysely<Database>, templateIds: readonly number[]): Promise<Map<number, string[]>> {
  const tags = new Map<number, string[]>(templateIds.map((id) => [id, []]));
  if (templateIds.length === 0) return tags;
  const rows = await db
    .selectFrom('template_tags')
    .select(['template_id', 'tag'])
    .where('template_id', 'in', [...templateIds])
    .orderBy('template_id')
    .orderBy('tag')
    .execute();
  for (const row of rows) tags.get(row.template_id)?.push(row.tag);
  return tags;
}

async function withTags(db: Kysely<Database>, rows: Array<TemplateRow & { owner_email: string }>): Promise<TemplateRecord[]> {
  const tags = await tagsOf(
    db,
    rows.map((row) => row.id),
  );
  return rows.map((row) => ({ ...row, tags: tags.get(row.id) ?? [] }));
}

async function replaceTags(db: Kysely<Database>, templateId: number, tags: readonly string[]): Promise<void> {
  await db.deleteFrom('template_tags').where('template_id', '=', templateId).execute();
  if (tags.length === 0) return;
  await db
    .insertInto('template_tags')
    .values(tags.map((tag) => ({ template_id: templateId, tag })))
    .execute();
}

function searchTextOf(name: string, description: string, tags: readonly string[]): string {
  return searchText(name, description, ...tags);
}

/** Inserts a template with its tags; call inside a transaction so both land or neither. */
export async function insertTemplate(db: Kysely<Database>, template: NewTemplate): Promise<number> {
  const { tags, ...row } = template;
  const { id } = await db
    .insertInto('templates')
    .values({ ...row, search_text: searchTextOf(row.name, row.description, tags) })
    .returning('id')
    .executeTakeFirstOrThrow();
  await replaceTags(db, id, tags);
  return id;
}

export async function findTemplate(db: Kysely<Database>, id: number): Promise<TemplateRecord | undefined> {
  const row = await selectTemplates(db).where('templates.id', '=', id).executeTakeFirst();
  if (!row) return undefined;
  const [record] = await withTags(db, [row]);
  return record;
}

export interface TemplateListQuery {
  limit: number;
  offset: number;
  search: string | undefined;
  kind: TemplateRow['kind'] | undefined;
  visibility: TemplateRow['visibility'] | undefined;
  tag: string | undefined;
  language: string | undefined;
}

function selectVisibleTemplates(db: Kysely<Database>, scope: TemplateListScope) {
  return selectTemplates(db).where((eb) =>
    eb.or([
      eb('templates.visibility', '=', 'system'),
      eb.and([eb('templates.visibility', '=', 'organization'), eb('templates.organization_id', '=', scope.organizationId)]),
      eb('templates.owner_id', '=', scope.userId),
    ]),
  );
}

/** The templates a scope lets the caller see, filtered, newest first, as the permission module defines the scope. */
export async function listTemplates(
  db: Kysely<Database>,
  scope: TemplateListScope,
  query: TemplateListQuery,
): Promise<{ items: TemplateRecord[]; total: number }> {
  let filtered = selectVisibleTemplates(db, scope);
  if (query.kind !== undefined) filtered = filtered.where('templates.kind', '=', query.kind);
  if (query.visibility !== undefined) filtered = filtered.where('templates.visibility', '=', query.visibility);
  if (query.language !== undefined) filtered = filtered.where('templates.language', '=', query.language);
  if (query.search !== undefined) filtered = filtered.where(containsText('templates.search_text', query.search));
  const tag = query.tag;
  if (tag !== undefined) {
    filtered = filtered.where((eb) =>
      eb.exists(
        eb
          .selectFrom('template_tags')
          .select('template_tags.template_id')
          .whereRef('template_tags.template_id', '=', 'templates.id')
          .where('template_tags.tag', '=', tag),
      ),
    );
  }
  const rows = await filtered.orderBy('templates.id', 'desc').limit(query.limit).offset(query.offset).execute();
  const { total } = await filtered
    .clearSelect()
    .select((eb) => eb.fn.countAll().as('total'))
    .executeTakeFirstOrThrow();
  return { items: await withTags(db, rows), total: Number(total) };
}

/** The changes an edit makes: the row's fields, and its tags when they change. */
export type TemplateChanges = Omit<TemplateUpdate, 'search_text' | 'updated_at'> & { tags?: readonly string[] };

/** Applies the changes to `current`, keeping its search text in step; false when it is gone. Call inside a transaction. */
export async function updateTemplate(db: Kysely<Database>, current: TemplateRecord, changes: TemplateChanges): Promise<boolean> {
  const { tags, ...fields } = changes;
  const nextTags = tags ?? current.tags;
  const result = await db
    .updateTable('templates')
    .set({
      ...fields,
      search_text: searchTextOf(fields.name ?? current.name, fields.description ?? current.description, nextTags),
      updated_at: nowTimestamp(),
    })
    .where('id', '=', current.id)
    .executeTakeFirst();
  if (Number(result.numUpdatedRows) === 0) return false;
  if (tags !== undefined) await replaceTags(db, current.id, tags);
  return true;
}

/** Deletes a template and its tags; false when it was already gone. */
export async function deleteTemplate(db: Kysely<Database>, id: number): Promise<boolean> {
  await db.deleteFrom('template_tags').where('template_id', '=', id).execute();
  const result = await db.deleteFrom('templates').where('id', '=', id).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}
