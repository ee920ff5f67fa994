/** Finding an organization by its slug, as people name one on the command line. */
import type { Kysely } from 'kysely';
import type { Database, OrganizationRow } from './schema.js';

export async function findOrganizationBySlug(db: Kysely<Database>, slug: string): Promise<OrganizationRow | undefined> {
  return db.selectFrom('organizations').selectAll().where('slug', '=', slug).executeTakeFirst();
}
