/** LTI 1.1 consumers and LTI 1.3 platform registrations of organizations. */
import type { Kysely } from 'kysely';
import type { PageBounds } from '../validation/page-query-schema.js';
import { nowTimestamp, type Database, type LtiConsumerRow, type LtiPlatformRow } from './schema.js';

export interface NewLtiConsumer {
  organizationId: number;
  name: string;
  consumerKey: string;
  secretEncrypted: string;
  frameOrigins: string[];
  createdBy: number;
}

export async function insertLtiConsumer(db: Kysely<Database>, consumer: NewLtiConsumer): Promise<number> {
  const { id } = await db
    .insertInto('lti_consumers')
    .values({
      organization_id: consumer.organizationId,
      name: consumer.name,
      consumer_key: consumer.consumerKey,
      secret_encrypted: consumer.secretEncrypted,
      frame_origins: JSON.stringify(consumer.frameOrigins),
      created_by: consumer.createdBy,
      created_at: nowTimestamp(),
      revoked_at: null,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return id;
}

/** A page of an organization's live consumers, oldest first (by id alone, so pages never overlap), with the count of all of them. */
export async function listLtiConsumers(
  db: Kysely<Database>,
  organizationId: number,
  page: PageBounds,
): Promise<{ items: LtiConsumerRow[]; total: number }> {
  const live = db.selectFrom('lti_consumers').where('organization_id', '=', organizationId).where('revoked_at', 'is', null);
  const items = await live.selectAll().orderBy('id').limit(page.limit).offset(page.offset).execute();
  const { total } = await live.select((eb) => eb.fn.countAll().as('total')).executeTakeFirstOrThrow();
  return { items, total: Number(total) };
}

export async function findLtiConsumer(db: Kysely<Database>, id: number): Promise<LtiConsumerRow | undefined> {
  return db.selectFrom('lti_consumers').selectAll().where('id', '=', id).where('revoked_at', 'is', null).executeTakeFirst();
}

export async function findLtiConsumerByKey(db: Kysely<Database>, consumerKey: string): Promise<LtiConsumerRow | undefined> {
  return db
    .selectFrom('lti_consumers')
    .selectAll()
    .where('consumer_key', '=', consumerKey)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
}

export async function updateLtiConsumer(
  db: Kysely<Database>,
  id: number,
  changes: { name?: string; frameOrigins?: string[] },
): Promise<void> {
  if (changes.name === undefined && changes.frameOrigins === undefined) return;
  await db
    .updateTable('lti_consumers')
    .set({
      ...(changes.name !== undefined && { name: changes.name }),
      ...(changes.frameOrigins !== undefined && { frame_origins: JSON.stringify(changes.frameOrigins) }),
    })
    .where('id', '=', id)
    .execute();
}

export async function revokeLtiConsumer(db: Kysely<Database>, id: number): Promise<void> {
  await db.updateTable('lti_consumers').set({ revoked_at: nowTimestamp() }).where('id', '=', id).execute();
}

export interface LtiPlatformFields {
  issuer: string;
  clientId: string;
  deploymentIds: string[];
  authLoginUrl: string;
  authTokenUrl: string;
  jwksUrl: string | null;
  publicKey: string | null;
  frameOrigins: string[];
}

function platformColumns(fields: LtiPlatformFields) {
  return {
    issuer: fields.issuer,
    client_id: fields.clientId,
    deployment_ids: JSON.stringify(fields.deploymentIds),
    auth_login_url: fields.authLoginUrl,
    auth_token_url: fields.authTokenUrl,
    jwks_url: fields.jwksUrl,
    public_key: fields.publicKey,
    frame_origins: JSON.stringify(fields.frameOrigins),
  };
}

export async function insertLtiPlatform(db: Kysely<Database>, organizationId: number, fields: LtiPlatformFields): Promise<number> {
  const timestamp = nowTimestamp();
  const { id } = await db
    .insertInto('lti_platforms')
    .values({ organization_id: organizationId, ...platformColumns(fields), created_at: timestamp, updated_at: timestamp })
    .returning('id')
    .executeTakeFirstOrThrow();
  return id;
}

export async function updateLtiPlatform(db: Kysely<Database>, id: number, fields: LtiPlatformFields): Promise<void> {
  await db
    .updateTable('lti_platforms')
    .set({ ...platformColumns(fields), updated_at: nowTimestamp() })
    .where('id', '=', id)
    .execute();
}

export async function deleteLtiPlatform(db: Kysely<Database>, id: number): Promise<void> {
  await db.deleteFrom('lti_platforms').where('id', '=', id).execute();
}

/** A page of an organization's platforms, oldest first (by id alone, so pages never overlap), with the count of all of them. */
export async function listLtiPlatforms(
  db: Kysely<Database>,
  organizationId: number,
  page: PageBounds,
): Promise<{ items: LtiPlatformRow[]; total: number }> {
  const ofOrganization = db.selectFrom('lti_platforms').where('organization_id', '=', organizationId);
  const items = await ofOrganization.selectAll().orderBy('id').limit(page.limit).offset(page.offset).execute();
  const { total } = await ofOrganization.select((eb) => eb.fn.countAll().as('total')).executeTakeFirstOrThrow();
  return { items, total: Number(total) };
}

export async function findLtiPlatform(db: Kysely<Database>, id: number): Promise<LtiPlatformRow | undefined> {
  return db.selectFrom('lti_platforms').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Registrations of one issuer; a login names its client id only sometimes, so all of them are candidates. */
export async function findLtiPlatformsByIssuer(db: Kysely<Database>, issuer: string): Promise<LtiPlatformRow[]> {
  return db.selectFrom('lti_platforms').selectAll().where('issuer', '=', issuer).orderBy('id').execute();
}
