/**
 * A knowledge base that takes sources by their address (`POST /api/knowledge-bases/{id}/web-pages`),
 * for the suites that add web pages and video transcripts: a server that may fetch from the
 * loopback fakes, a teacher (a creator) and an empty knowledge base of theirs; and the checks that
 * every kind of source added by its address must pass alike.
 */
import { expect } from 'vitest';
import type { Dialect } from './test-databases.js';
import { peopleInTwoOrganizations } from './two-organizations.js';
import { createUser, loginAsAdmin, request, startTestServer, type CreatedUser, type JsonResponse, type TestServer } from './test-server.js';

/** The largest page the server reads in the suites that refuse pages past it. */
export const PAGE_BYTES_MAXIMUM = 65_536;
/**
 * Long enough that none of 50 pages fetched at once from loopback times out on a loaded 2-core CI
 * machine (at 1.5 s one did), short enough that a slow page's refusal comes soon.
 */
export const PAGE_TIMEOUT_MILLISECONDS = 5_000;
/** The settings holding the server to those two limits and to three redirects. */
export const WEB_PAGE_LIMITS: Record<string, string> = {
  WEB_PAGE_MAX_BYTES: String(PAGE_BYTES_MAXIMUM),
  WEB_PAGE_TIMEOUT_MS: String(PAGE_TIMEOUT_MILLISECONDS),
  WEB_PAGE_REDIRECTS_MAX: '3',
};

export interface WebSourceKnowledgeBase {
  server: TestServer;
  teacher: CreatedUser;
  knowledgeBaseId: number;
}

export interface WebSourceKnowledgeBaseOptions {
  teacherEmail: string;
  /** The knowledge base's fields at creation: its name, and its passage sizes where a suite reads passages. */
  knowledgeBase: Record<string, unknown>;
  /** Settings besides a quick ingestion poll and leave to fetch from loopback, such as the web page limits. */
  environment?: Record<string, string>;
}

export async function startWebSourceKnowledgeBase(
  dialect: Dialect,
  options: WebSourceKnowledgeBaseOptions,
): Promise<WebSourceKnowledgeBase> {
  const server = await startTestServer(dialect, {
    environment: {
      INGESTION_POLL_MS: '20',
      // The fakes listen on loopback; every other internal address stays refused.
      OUTBOUND_ALLOWED_HOSTS: '127.0.0.1',
      ...options.environment,
    },
  });
  try {
    const teacher = await createUser(server, await loginAsAdmin(server), { email: options.teacherEmail, role: 'creator' });
    const created = await request(server, 'POST', '/api/knowledge-bases', { token: teacher.token, body: options.knowledgeBase });
    expect(created.status, created.text).toBe(201);
    return { server, teacher, knowledgeBaseId: created.body.id as number };
  } catch (error) {
    // The caller never gets the server to close.
    await server.close();
    throw error;
  }
}

/** Adds a source by its address as `token`: the teacher's unless given, none at all for null. */
export function addByAddress(
  world: WebSourceKnowledgeBase,
  body: Record<string, unknown>,
  token: string | null = world.teacher.token,
): Promise<JsonResponse> {
  return request(world.server, 'POST', `/api/knowledge-bases/${world.knowledgeBaseId}/web-pages`, {
    ...(token !== null && { token }),
    body,
  });
}

export async function documentCount(world: WebSourceKnowledgeBase): Promise<number> {
  return (await request(world.server, 'GET', `/api/knowledge-bases/${world.knowledgeBaseId}/documents`, { token: world.teacher.token }))
    .body.total;
}

/**
 * Adds `body` as everyone who may not change the knowledge base, all at once: a creator of its
 * organization, a learner there and another organization's admin find no such knowledge base
 * (404), and no one at all is unauthenticated (401). The caller checks that nothing was fetched.
 */
export async function expectAddingRefusedToOthers(
  world: WebSourceKnowledgeBase,
  body: Record<string, unknown>,
  emailPrefix: string,
): Promise<void> {
  const adminToken = await loginAsAdmin(world.server);
  const others = await peopleInTwoOrganizations(world.server, adminToken, [
    { email: `${emailPrefix}-colleague@merino.test`, role: 'creator', organization: 'A' },
    { email: `${emailPrefix}-learner@merino.test`, role: 'learner', organization: 'A' },
    { email: `${emailPrefix}-other@merino.test`, role: 'admin', organization: 'B' },
  ]);
  const answers = await Promise.all([...others, null].map((token) => addByAddress(world, body, token)));
  expect(answers.map((answer) => answer.status)).toEqual([404, 404, 404, 401]);
  expect(answers.map((answer) => answer.body.error.code)).toEqual(['not_found', 'not_found', 'not_found', 'unauthenticated']);
}

/** Adds the same `body` `count` times at once: every one is accepted, each as a document of its own. */
export async function expectEachAddedAsItsOwnDocument(
  world: WebSourceKnowledgeBase,
  body: Record<string, unknown>,
  count: number,
): Promise<void> {
  const before = await documentCount(world);
  const answers = await Promise.all(Array.from({ length: count }, () => addByAddress(world, body)));
  const refused = answers.filter((answer) => answer.status !== 202).map((answer) => answer.text);
  expect(
    answers.map((answer) => answer.status),
    refused.join('\n'),
  ).toEqual(Array.from({ length: count }, () => 202));
  expect(new Set(answers.map((answer) => answer.body.document_id)).size).toBe(count);
  expect(await documentCount(world)).toBe(before + count);
}
