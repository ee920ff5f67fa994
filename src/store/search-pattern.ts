/**
 * Substring search that behaves the same on SQLite and PostgreSQL: the searched column holds text
 * lower-cased by JavaScript (database `lower()` folds only ASCII under SQLite and C-locale
 * PostgreSQL), and the query's own `%`, `_` and `\` are escaped so they match literally.
 */
import { sql, type Expression, type SqlBool } from 'kysely';

const LIKE_SPECIAL_CHARACTERS = /[\\%_]/g;

export function searchText(...parts: string[]): string {
  return parts.join('\n').toLowerCase();
}

export function containsText(column: string, search: string): Expression<SqlBool> {
  const pattern = `%${search.toLowerCase().replace(LIKE_SPECIAL_CHARACTERS, '\\$&')}%`;
  return sql<SqlBool>`${sql.ref(column)} like ${pattern} escape '\\'`;
}
