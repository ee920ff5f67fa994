/** The live assistants whose stored metadata contains a file's path: the candidates for "which assistants use this file". */
import { sql, type Kysely } from 'kysely';
import type { Database } from './schema.js';

/** Escapes LIKE's wildcards and its escape character, so the text is matched literally. */
function literalLikePattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (character) => `\\${character}`)}%`;
}

/**
 * Live assistants whose metadata holds `text` anywhere, with their metadata: a coarse filter
 * the files service confirms by reading each metadata, so no LIKE subtlety can add a false hit.
 */
export async function liveAssistantsWithMetadataContaining(
  db: Kysely<Database>,
  text: string,
): Promise<Array<{ id: number; metadata: string }>> {
  return db
    .selectFrom('assistants')
    .select(['id', 'metadata'])
    .where('deleted_at', 'is', null)
    .where(sql<boolean>`metadata like ${literalLikePattern(text)} escape '\\'`)
    .orderBy('id')
    .execute();
}
