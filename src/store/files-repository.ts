/** Uploaded files (soft-deleted rows stay, with `deleted_at` set). The bytes are on disk, see src/files/. */
import type { Kysely } from 'kysely';
import type { PageBounds } from '../validation/page-query-schema.js';
import type { FileListScope } from './list-scopes.js';
import { precompiledQuery } from './precompiled-query.js';
import type { Database, FileRow, NewFileRow } from './schema.js';

export async function insertFile(db: Kysely<Database>, row: NewFileRow): Promise<FileRow> {
  return db.insertInto('files').values(row).returningAll().executeTakeFirstOrThrow();
}

/** Finds a file by id, deleted or not; the permission module decides what a deleted one means. */
export async function findFileById(db: Kysely<Database>, id: number): Promise<FileRow | undefined> {
  return db.selectFrom('files').selectAll().where('id', '=', id).executeTakeFirst();
}

// The single-file tool reads its file's row on every request: compiled once.
const selectLiveFileByPath = precompiledQuery(['filePath'], (db: Kysely<Database>, { filePath }) =>
  db.selectFrom('files').selectAll().where('file_path', '=', filePath).where('deleted_at', 'is', null),
);

export async function findLiveFileByPath(db: Kysely<Database>, filePath: string): Promise<FileRow | undefined> {
  const [row] = await selectLiveFileByPath(db, { filePath });
  return row;
}

/** The file paths an owner's live files hold, to pick a name that does not collide with them. */
export async function listLiveFilePaths(db: Kysely<Database>, ownerId: number): Promise<Set<string>> {
  const rows = await db.selectFrom('files').select('file_path').where('owner_id', '=', ownerId).where('deleted_at', 'is', null).execute();
  return new Set(rows.map((row) => row.file_path));
}

/** A page of the live files a scope includes, newest first (by id alone, so pages never overlap), with the count of all of them. */
export async function listLiveFiles(
  db: Kysely<Database>,
  scope: FileListScope,
  page: PageBounds,
): Promise<{ items: FileRow[]; total: number }> {
  let live = db.selectFrom('files').where('deleted_at', 'is', null);
  if (scope.kind === 'organization') live = live.where('organization_id', '=', scope.organizationId);
  if (scope.kind === 'owner') live = live.where('owner_id', '=', scope.userId);
  const items = await live.selectAll().orderBy('id', 'desc').limit(page.limit).offset(page.offset).execute();
  const { total } = await live.select((eb) => eb.fn.countAll().as('total')).executeTakeFirstOrThrow();
  return { items, total: Number(total) };
}

/** Which of `storedNames` (files in the owner's folder) a live row of that owner names; the others are bytes nothing can read. */
export async function liveStoredNames(db: Kysely<Database>, ownerId: number, storedNames: readonly string[]): Promise<Set<string>> {
  const live = new Set<string>();
  // In slices, so a crowded folder never makes one statement with more parameters than the store takes.
  for (let start = 0; start < storedNames.length; start += 500) {
    const slice = storedNames.slice(start, start + 500);
    const rows = await db
      .selectFrom('files')
      .select('stored_name')
      .where('owner_id', '=', ownerId)
      .where('stored_name', 'in', slice)
      .where('deleted_at', 'is', null)
      .execute();
    for (const row of rows) live.add(row.stored_name);
  }
  return live;
}

/** Marks a live file deleted; false when it was not live (already deleted, or gone). */
export async function markFileDeleted(db: Kysely<Database>, id: number, deletedAt: string): Promise<boolean> {
  const result = await db
    .updateTable('files')
    .set({ deleted_at: deletedAt })
    .where('id', '=', id)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** True when an insert failed on a unique constraint: SQLite's SQLITE_CONSTRAINT_UNIQUE or PostgreSQL's SQLSTATE 23505. */
export function isUniqueViolation(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === 'SQLITE_CONSTRAINT_UNIQUE' || code === '23505';
}

/** The live generated images whose chat no longer exists (migration 0090): what a chat's deletion leaves to delete. */
export async function listLiveImagesOfDeletedChats(db: Kysely<Database>): Promise<FileRow[]> {
  return db
    .selectFrom('files')
    .selectAll()
    .where('chat_id', 'is not', null)
    .where('deleted_at', 'is', null)
    .where((eb) => eb.not(eb.exists(eb.selectFrom('chats').select('chats.id').whereRef('chats.id', '=', 'files.chat_id'))))
    .execute();
}
