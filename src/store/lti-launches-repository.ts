/**
 * What LTI launches leave behind: which Merino user each LTI user is, the resource links
 * ("activities") and the assistant bound to each, every launch (for the teacher's dashboard and
 * for the return link of an LTI session), and the tool's own key pair.
 */
import { sql, type Kysely } from 'kysely';
import { nowTimestamp, toFlag, type Database, type LtiLinkRow } from './schema.js';

export async function findLtiUserId(db: Kysely<Database>, source: string, ltiUserId: string): Promise<number | undefined> {
  const row = await db
    .selectFrom('lti_users')
    .select('user_id')
    .where('source', '=', source)
    .where('lti_user_id', '=', ltiUserId)
    .executeTakeFirst();
  return row?.user_id;
}

export async function insertLtiUser(db: Kysely<Database>, source: string, ltiUserId: string, userId: number): Promise<void> {
  await db.insertInto('lti_users').values({ source, lti_user_id: ltiUserId, user_id: userId, created_at: nowTimestamp() }).execute();
}

/** The link, created on its first launch; racing first launches agree on one row through the unique pair. */
export async function findOrCreateLtiLink(
  db: Kysely<Database>,
  link: { organizationId: number; source: string; resourceLinkId: string; title: string },
): Promise<LtiLinkRow> {
  const timestamp = nowTimestamp();
  await sql`
    insert into lti_links (organization_id, source, resource_link_id, title, assistant_id, bound_by, created_at, updated_at)
    values (${link.organizationId}, ${link.source}, ${link.resourceLinkId}, ${link.title}, ${null}, ${null}, ${timestamp}, ${timestamp})
    on conflict (source, resource_link_id) do nothing`.execute(db);
  return db
    .selectFrom('lti_links')
    .selectAll()
    .where('source', '=', link.source)
    .where('resource_link_id', '=', link.resourceLinkId)
    .executeTakeFirstOrThrow();
}

export async function findLtiLink(db: Kysely<Database>, id: number): Promise<LtiLinkRow | undefined> {
  return db.selectFrom('lti_links').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function bindLtiLink(db: Kysely<Database>, id: number, assistantId: number, boundBy: number | null): Promise<void> {
  await db
    .updateTable('lti_links')
    .set({ assistant_id: assistantId, bound_by: boundBy, updated_at: nowTimestamp() })
    .where('id', '=', id)
    .execute();
}

export interface NewLtiLaunch {
  linkId: number;
  userId: number;
  sessionId: number;
  instructor: boolean;
  returnUrl: string | null;
}

export async function insertLtiLaunch(db: Kysely<Database>, launch: NewLtiLaunch): Promise<void> {
  await db
    .insertInto('lti_launches')
    .values({
      link_id: launch.linkId,
      user_id: launch.userId,
      session_id: launch.sessionId,
      instructor: toFlag(launch.instructor),
      return_url: launch.returnUrl,
      created_at: nowTimestamp(),
    })
    .execute();
}

export interface SessionLaunch {
  linkId: number;
  instructor: boolean;
  returnUrl: string | null;
  source: string;
}

/** The launch that opened this session, if an LTI launch did. */
export async function findLaunchOfSession(db: Kysely<Database>, sessionId: number): Promise<SessionLaunch | undefined> {
  const row = await db
    .selectFrom('lti_launches')
    .innerJoin('lti_links', 'lti_links.id', 'lti_launches.link_id')
    .select(['lti_launches.link_id', 'lti_launches.instructor', 'lti_launches.return_url', 'lti_links.source'])
    .where('lti_launches.session_id', '=', sessionId)
    .orderBy('lti_launches.id', 'desc')
    .executeTakeFirst();
  return row && { linkId: row.link_id, instructor: row.instructor === 1, returnUrl: row.return_url, source: row.source };
}

/** Whether the user ever launched this link as an Instructor. */
export async function launchedAsInstructor(db: Kysely<Database>, linkId: number, userId: number): Promise<boolean> {
  const row = await db
    .selectFrom('lti_launches')
    .select('id')
    .where('link_id', '=', linkId)
    .where('user_id', '=', userId)
    .where('instructor', '=', 1)
    .executeTakeFirst();
  return row !== undefined;
}

export interface ActivityLearner {
  userId: number;
  name: string;
  launches: number;
  lastVisit: string;
}

/** Learners (not Instructors) who opened the link, with how often and when last. */
export async function listActivityLearners(db: Kysely<Database>, linkId: number): Promise<ActivityLearner[]> {
  const rows = await db
    .selectFrom('lti_launches')
    .innerJoin('users', 'users.id', 'lti_launches.user_id')
    .select(['users.id as user_id', 'users.name'])
    .select((expression) => [
      expression.fn.countAll<number | string>().as('launches'),
      expression.fn.max('lti_launches.created_at').as('last_visit'),
    ])
    .where('lti_launches.link_id', '=', linkId)
    .where('lti_launches.instructor', '=', 0)
    .groupBy(['users.id', 'users.name'])
    .orderBy('last_visit', 'desc')
    .execute();
  return rows.map((row) => ({ userId: row.user_id, name: row.name, launches: Number(row.launches), lastVisit: row.last_visit }));
}

export interface ActivityUsage {
  requests: number;
  promptTokens: number;
  completionTokens: number;
  chats: number;
  messages: number;
}

/** Chats the given users keep with the assistant, and the messages in them. */
async function activityChats(db: Kysely<Database>, assistantId: number, userIds: number[]): Promise<{ chats: number; messages: number }> {
  const row = await db
    .selectFrom('chats')
    .leftJoin('chat_messages', 'chat_messages.chat_id', 'chats.id')
    .select((expression) => [
      expression.fn.count<number | string>('chats.id').distinct().as('chats'),
      expression.fn.count<number | string>('chat_messages.id').as('messages'),
    ])
    .where('chats.assistant_id', '=', assistantId)
    .where('chats.owner_id', 'in', userIds)
    .executeTakeFirstOrThrow();
  return { chats: Number(row.chats), messages: Number(row.messages) };
}

/** Chat requests the given users made to the assistant (from the usage log), and the chats they keep with it. */
export async function activityUsage(db: Kysely<Database>, assistantId: number, userIds: number[]): Promise<ActivityUsage> {
  if (userIds.length === 0) return { requests: 0, promptTokens: 0, completionTokens: 0, chats: 0, messages: 0 };
  const row = await db
    .selectFrom('usage_logs')
    .select((expression) => [
      expression.fn.countAll<number | string>().as('requests'),
      expression.fn.sum<number | string | null>('prompt_tokens').as('prompt_tokens'),
      expression.fn.sum<number | string | null>('completion_tokens').as('completion_tokens'),
    ])
    .where('assistant_id', '=', assistantId)
    .where('user_id', 'in', userIds)
    .executeTakeFirstOrThrow();
  return {
    requests: Number(row.requests),
    promptTokens: Number(row.prompt_tokens ?? 0),
    completionTokens: Number(row.completion_tokens ?? 0),
    ...(await activityChats(db, assistantId, userIds)),
  };
}

export interface StoredToolKey {
  kid: string;
  publicJwk: string;
  privateKeyEncrypted: string;
}

export async function findToolKeys(db: Kysely<Database>): Promise<StoredToolKey[]> {
  const rows = await db.selectFrom('lti_tool_keys').selectAll().orderBy('created_at').orderBy('kid').execute();
  return rows.map((row) => ({ kid: row.kid, publicJwk: row.public_jwk, privateKeyEncrypted: row.private_key_encrypted }));
}

/** Stores the key unless one exists already; processes starting together each try, and all then read the same first key. */
export async function insertToolKeyIfNone(db: Kysely<Database>, key: StoredToolKey): Promise<void> {
  await db.transaction().execute(async (transaction) => {
    const existing = await transaction.selectFrom('lti_tool_keys').select('kid').executeTakeFirst();
    if (existing) return;
    await transaction
      .insertInto('lti_tool_keys')
      .values({ kid: key.kid, public_jwk: key.publicJwk, private_key_encrypted: key.privateKeyEncrypted, created_at: nowTimestamp() })
      .execute();
  });
}
