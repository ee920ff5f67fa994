/**
 * A knowledge base its owner shares with the organization, for the suites about a setting of a
 * knowledge base that its organization's people may read but only its owner may change: the four
 * roles of two organizations (test/support/two-organizations.ts) and the owner's knowledge base
 * "Apunts", tagged Catalan (`ca`) and visible to organization A.
 */
import { afterAll, beforeAll, expect } from 'vitest';
import { possiblyUnset } from './possibly-unset.js';
import type { Dialect } from './test-databases.js';
import { loginAsAdmin, request, startTestServer, type TestServer } from './test-server.js';
import { fourRolesInTwoOrganizations, type FourRoles } from './two-organizations.js';

export interface SharedKnowledgeBase extends FourRoles {
  server: TestServer;
  /** The shared knowledge base's id. */
  sharedId: number;
}

/** Registers the describe block's beforeAll and afterAll; the fields are set once beforeAll has run. */
export function sharedKnowledgeBaseSuite(dialect: Dialect): SharedKnowledgeBase {
  const world = {} as SharedKnowledgeBase;
  beforeAll(async () => {
    world.server = await startTestServer(dialect);
    Object.assign(world, await fourRolesInTwoOrganizations(world.server, await loginAsAdmin(world.server)));
    const created = await request(world.server, 'POST', '/api/knowledge-bases', {
      token: world.owner,
      body: { name: 'Apunts', language: 'ca' },
    });
    expect(created.status, created.text).toBe(201);
    world.sharedId = created.body.id as number;
    const shared = await request(world.server, 'PATCH', `/api/knowledge-bases/${world.sharedId}`, {
      token: world.owner,
      body: { visibility: 'organization' },
    });
    expect(shared.status, shared.text).toBe(200);
  });
  afterAll(async () => {
    await possiblyUnset(world.server)?.close();
  });
  return world;
}

/**
 * PATCHes `body` to the shared knowledge base as everyone but its owner: the colleague who can read
 * it gets 403, the learner and the other organization's creator 403 or 404, and no one at all 401.
 */
export async function expectChangedByNoOneButTheOwner(world: SharedKnowledgeBase, body: Record<string, unknown>): Promise<void> {
  const path = `/api/knowledge-bases/${world.sharedId}`;
  expect((await request(world.server, 'PATCH', path, { token: world.colleague, body })).status).toBe(403);
  for (const token of [world.learner, world.outsider]) {
    expect([403, 404]).toContain((await request(world.server, 'PATCH', path, { token, body })).status);
  }
  expect((await request(world.server, 'PATCH', path, { body })).status).toBe(401);
}
