/**
 * The class of defect 13 beyond users, over real HTTP on both dialects: for assistants and
 * knowledge bases in every state (private, published or shared with the organization, shared with
 * one user, deleted), every caller's list holds exactly the objects that reading them by id
 * answers 200 for. A list built from a different rule than the read would show up here as an
 * object listed but 404, or readable but never listed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertOrganization } from '../src/store/organizations-repository.js';
import { TEST_DIALECTS } from './support/test-databases.js';
import { createUser, loginAsAdmin, request, startTestServer, type TestServer } from './support/test-server.js';
import { possiblyUnset } from './support/possibly-unset.js';

const PAGE = 3;

describe.each(TEST_DIALECTS)('lists and reads by id on %s', (dialect) => {
  let server: TestServer;
  const tokens: Record<string, string> = {};

  async function listedIds(path: string, token: string): Promise<number[]> {
    const ids: number[] = [];
    for (let offset = 0; ; offset += PAGE) {
      const page = await request(server, 'GET', `${path}?limit=${PAGE}&offset=${offset}`, { token });
      expect(page.status, page.text).toBe(200);
      ids.push(...page.body.items.map((item: { id: number }) => item.id));
      if (offset + PAGE >= page.body.total) return ids.sort((a, b) => a - b);
    }
  }

  async function readableIds(path: string, token: string, allIds: number[]): Promise<number[]> {
    const readable: number[] = [];
    for (const id of allIds) {
      const read = await request(server, 'GET', `${path}/${id}`, { token });
      expect([200, 404], read.text).toContain(read.status);
      if (read.status === 200) readable.push(id);
    }
    return readable;
  }

  beforeAll(async () => {
    server = await startTestServer(dialect);
    tokens.system = await loginAsAdmin(server);
    const organizationA = await insertOrganization(server.store.db, `lists-a-${dialect}`, 'A');
    const organizationB = await insertOrganization(server.store.db, `lists-b-${dialect}`, 'B');
    const make = async (name: string, role: 'admin' | 'creator' | 'learner', organizationId: number) =>
      (await createUser(server, tokens.system!, { email: `${name}@lists.test`, role, organization_id: organizationId })).token;
    tokens.adminA = await make('admin.a', 'admin', organizationA);
    tokens.owner = await make('owner.a', 'creator', organizationA);
    tokens.creatorA = await make('creator.a', 'creator', organizationA);
    tokens.sharedLearner = await make('shared.a', 'learner', organizationA);
    tokens.learnerA = await make('learner.a', 'learner', organizationA);
    tokens.adminB = await make('admin.b', 'admin', organizationB);
    tokens.creatorB = await make('creator.b', 'creator', organizationB);

    const assistant = async (token: string, name: string) => {
      const created = await request(server, 'POST', '/api/assistants', {
        token,
        body: { name, system_prompt: 'x', metadata: { connector: 'bypass', llm: 'debug-bypass' } },
      });
      expect(created.status, created.text).toBe(201);
      return created.body.id as number;
    };
    await assistant(tokens.owner, 'private');
    const published = await assistant(tokens.owner, 'published');
    expect(
      (await request(server, 'PUT', `/api/assistants/${published}/publish`, { token: tokens.owner, body: { published: true } })).status,
    ).toBe(200);
    const shared = await assistant(tokens.owner, 'shared');
    const sharing = await request(server, 'PUT', `/api/assistants/${shared}/shares`, {
      token: tokens.owner,
      body: { user_emails: ['shared.a@lists.test'] },
    });
    expect(sharing.status, sharing.text).toBe(200);
    const deleted = await assistant(tokens.owner, 'deleted');
    expect(
      (await request(server, 'PUT', `/api/assistants/${deleted}/publish`, { token: tokens.owner, body: { published: true } })).status,
    ).toBe(200);
    expect((await request(server, 'DELETE', `/api/assistants/${deleted}`, { token: tokens.owner })).status).toBe(204);
    await assistant(tokens.creatorB, 'other organization');

    const knowledgeBase = async (token: string, name: string, visibility?: 'organization') => {
      const created = await request(server, 'POST', '/api/knowledge-bases', { token, body: { name } });
      expect(created.status, created.text).toBe(201);
      if (visibility)
        expect((await request(server, 'PATCH', `/api/knowledge-bases/${created.body.id}`, { token, body: { visibility } })).status).toBe(
          200,
        );
      return created.body.id as number;
    };
    await knowledgeBase(tokens.owner, 'private');
    await knowledgeBase(tokens.owner, 'organization', 'organization');
    const deletedBase = await knowledgeBase(tokens.owner, 'deleted', 'organization');
    expect([200, 202, 204]).toContain(
      (await request(server, 'DELETE', `/api/knowledge-bases/${deletedBase}`, { token: tokens.owner })).status,
    );
    await knowledgeBase(tokens.creatorB, 'other organization', 'organization');
  });

  afterAll(async () => {
    await possiblyUnset(server)?.close();
  });

  const CALLERS = ['system', 'adminA', 'owner', 'creatorA', 'sharedLearner', 'learnerA', 'adminB', 'creatorB'];

  it('gives the callers different views, so the comparisons below are not between empty lists', async () => {
    const counts = async (path: string) =>
      Promise.all(
        ['system', 'owner', 'sharedLearner', 'learnerA', 'adminB'].map(async (caller) => (await listedIds(path, tokens[caller]!)).length),
      );
    // Assistants: system sees A's three live ones and B's; the owner A's three; the shared learner published + shared; a learner published; B's admin B's.
    expect(await counts('/api/assistants')).toEqual([4, 3, 2, 1, 1]);
    expect(await counts('/api/knowledge-bases')).toEqual([3, 2, 1, 1, 1]);
  });

  it.each(CALLERS)('lists exactly the assistants %s may read by id', async (caller) => {
    const all = (await server.store.db.selectFrom('assistants').select('id').orderBy('id').execute()).map((row) => row.id);
    expect(await listedIds('/api/assistants', tokens[caller]!)).toEqual(await readableIds('/api/assistants', tokens[caller]!, all));
  });

  it.each(CALLERS)('lists exactly the knowledge bases %s may read by id', async (caller) => {
    const all = (await server.store.db.selectFrom('knowledge_bases').select('id').orderBy('id').execute()).map((row) => row.id);
    expect(await listedIds('/api/knowledge-bases', tokens[caller]!)).toEqual(
      await readableIds('/api/knowledge-bases', tokens[caller]!, all),
    );
  });
});
