/**
 * Defect 14 over real HTTP on both dialects: `POST /api/rubrics` with a chosen rubricId answered
 * 409 when another organization held a private rubric with that id, which told anyone it existed.
 * Rubric ids are now unique per organization: another organization's ids neither collide with
 * nor reveal anything, each organization reads its own rubric under a shared id (also through an
 * assistant's rubric_rag tool), and only system admins reach into other organizations, naming one
 * with ?organization_id= when several hold the id. Ids stay unique forever inside one organization.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertOrganization } from '../src/store/organizations-repository.js';
import { TEST_DIALECTS } from './support/test-databases.js';
import { createUser, loginAsAdmin, request, startTestServer, type TestServer } from './support/test-server.js';
import { possiblyUnset } from './support/possibly-unset.js';

const CHOSEN_ID = 'essay-rubric-2025';

function rubricBody(title: string, extra: Record<string, unknown> = {}) {
  return {
    title,
    description: `${title} description`,
    scoringType: 'points',
    maxScore: 10,
    criteria: [
      {
        name: 'Argument',
        description: 'How well the essay argues.',
        weight: 1,
        levels: [
          { score: 10, label: 'Strong', description: 'Convincing.' },
          { score: 0, label: 'Weak', description: 'Unconvincing.' },
        ],
      },
    ],
    ...extra,
  };
}

describe.each(TEST_DIALECTS)('rubric ids across organizations on %s', (dialect) => {
  let server: TestServer;
  let system: string;
  let organizationA: number;
  let organizationB: number;
  const tokens: Record<'creatorA' | 'adminA' | 'creatorB' | 'learnerB', string> = { creatorA: '', adminA: '', creatorB: '', learnerB: '' };

  beforeAll(async () => {
    server = await startTestServer(dialect);
    system = await loginAsAdmin(server);
    organizationA = await insertOrganization(server.store.db, `rubrics-a-${dialect}`, 'A');
    organizationB = await insertOrganization(server.store.db, `rubrics-b-${dialect}`, 'B');
    tokens.creatorA = (
      await createUser(server, system, { email: 'creator.a@merino.test', role: 'creator', organization_id: organizationA })
    ).token;
    tokens.adminA = (
      await createUser(server, system, { email: 'admin.a@merino.test', role: 'admin', organization_id: organizationA })
    ).token;
    tokens.creatorB = (
      await createUser(server, system, { email: 'creator.b@merino.test', role: 'creator', organization_id: organizationB })
    ).token;
    tokens.learnerB = (
      await createUser(server, system, { email: 'learner.b@merino.test', role: 'learner', organization_id: organizationB })
    ).token;
    const privateInA = await request(server, 'POST', '/api/rubrics', {
      token: tokens.creatorA,
      body: rubricBody('Private in A', { rubricId: CHOSEN_ID }),
    });
    expect(privateInA.status, privateInA.text).toBe(201);
  });

  afterAll(async () => {
    await possiblyUnset(server)?.close();
  });

  it("lets another organization choose the same rubricId: no 409, nothing about A's rubric in the answer", async () => {
    const created = await request(server, 'POST', '/api/rubrics', {
      token: tokens.creatorB,
      body: rubricBody('Own in B', { rubricId: CHOSEN_ID }),
    });
    expect(created.status, created.text).toBe(201);
    expect(created.body).toMatchObject({ rubricId: CHOSEN_ID, title: 'Own in B', organization_id: organizationB, is_mine: true });
    expect(created.text).not.toContain('Private in A');
  });

  it('answers the same for an id taken in another organization as for a fresh one', async () => {
    const taken = await request(server, 'POST', '/api/rubrics', {
      token: tokens.creatorB,
      body: rubricBody('Probe', { rubricId: 'probe-that-a-never-used', visibility: 'private' }),
    });
    const probeOfA = await request(server, 'POST', '/api/rubrics', {
      token: tokens.adminA,
      body: rubricBody('A fresh one', { rubricId: 'probe-that-a-never-used' }),
    });
    expect([taken.status, probeOfA.status]).toEqual([201, 201]);
  });

  it('gives each organization its own rubric under the shared id, and never the other one', async () => {
    const readByA = await request(server, 'GET', `/api/rubrics/${CHOSEN_ID}`, { token: tokens.adminA });
    const readByB = await request(server, 'GET', `/api/rubrics/${CHOSEN_ID}`, { token: tokens.creatorB });
    expect([readByA.body.title, readByB.body.title]).toEqual(['Private in A', 'Own in B']);
    const bReachingIntoA = await request(server, 'GET', `/api/rubrics/${CHOSEN_ID}?organization_id=${organizationA}`, {
      token: tokens.creatorB,
    });
    expect(bReachingIntoA.status).toBe(404);
    expect(bReachingIntoA.text).not.toContain('Private in A');
    expect(
      (
        await request(server, 'PATCH', `/api/rubrics/${CHOSEN_ID}?organization_id=${organizationA}`, {
          token: tokens.creatorB,
          body: { title: 'Taken over' },
        })
      ).status,
    ).toBe(404);
    expect(
      (await request(server, 'DELETE', `/api/rubrics/${CHOSEN_ID}?organization_id=${organizationA}`, { token: tokens.creatorB })).status,
    ).toBe(404);
    expect(
      (await request(server, 'GET', `/api/rubrics/${CHOSEN_ID}/export?organization_id=${organizationA}`, { token: tokens.creatorB }))
        .status,
    ).toBe(404);
    expect((await request(server, 'GET', `/api/rubrics/${CHOSEN_ID}`, { token: tokens.adminA })).body.title).toBe('Private in A');
  });

  it('still refuses an id taken in the same organization, deleted rubrics included (409)', async () => {
    const again = await request(server, 'POST', '/api/rubrics', {
      token: tokens.adminA,
      body: rubricBody('Duplicate', { rubricId: CHOSEN_ID }),
    });
    expect(again.status).toBe(409);
    expect(again.body.error).toMatchObject({ code: 'rubric_id_taken', param: 'rubricId' });
    expect(
      (
        await request(server, 'POST', '/api/rubrics', {
          token: tokens.creatorB,
          body: rubricBody('Doomed', { rubricId: 'doomed-rubric-in-b' }),
        })
      ).status,
    ).toBe(201);
    expect((await request(server, 'DELETE', '/api/rubrics/doomed-rubric-in-b', { token: tokens.creatorB })).status).toBe(204);
    expect(
      (
        await request(server, 'POST', '/api/rubrics', {
          token: tokens.creatorB,
          body: rubricBody('Reborn', { rubricId: 'doomed-rubric-in-b' }),
        })
      ).status,
    ).toBe(409);
    expect(
      (
        await request(server, 'POST', '/api/rubrics', {
          token: tokens.creatorA,
          body: rubricBody('Elsewhere', { rubricId: 'doomed-rubric-in-b' }),
        })
      ).status,
    ).toBe(201);
  });

  it('lets a system admin name the organization when several hold the id, and reach a unique one without naming it', async () => {
    const ambiguous = await request(server, 'GET', `/api/rubrics/${CHOSEN_ID}`, { token: system });
    expect(ambiguous.status).toBe(400);
    expect(ambiguous.body.error).toMatchObject({ code: 'ambiguous_rubric', param: 'organization_id' });
    const named = await request(server, 'GET', `/api/rubrics/${CHOSEN_ID}?organization_id=${organizationB}`, { token: system });
    expect(named.status, named.text).toBe(200);
    expect(named.body.title).toBe('Own in B');
    const onlyInA = await request(server, 'POST', '/api/rubrics', {
      token: tokens.creatorA,
      body: rubricBody('Only in A', { rubricId: 'only-in-organization-a' }),
    });
    expect(onlyInA.status).toBe(201);
    expect((await request(server, 'GET', '/api/rubrics/only-in-organization-a', { token: system })).body.title).toBe('Only in A');
  });

  it("fills an assistant's rubric from its owner's organization only", async () => {
    const assistant = await request(server, 'POST', '/api/assistants', {
      token: tokens.creatorB,
      body: {
        name: 'Grader B',
        prompt_template: 'Rubric:\n{context}\n{user_input}',
        metadata: { connector: 'bypass', llm: 'debug-bypass', rag_processor: 'rubric_rag', rubric_id: CHOSEN_ID },
      },
    });
    expect(assistant.status, assistant.text).toBe(201);
    const answer = await request(server, 'POST', '/v1/chat/completions', {
      token: tokens.creatorB,
      body: { model: `lamb_assistant.${assistant.body.id}`, messages: [{ role: 'user', content: 'Grade this.' }] },
    });
    expect(answer.status, answer.text).toBe(200);
    const prompt = JSON.parse(answer.body.choices[0].message.content).messages.at(-1).content as string;
    expect(prompt).toContain('Own in B');
    expect(prompt).not.toContain('Private in A');
  });
});
