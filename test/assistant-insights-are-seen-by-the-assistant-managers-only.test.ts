/**
 * Who may see an assistant's insights and its rated answers (docs/assistant-insights.md): its
 * owner and the admins over it get them; a creator it is shared with, a member of its organization
 * who may chat with it and a learner get 403 for the insights (they can see the assistant) and
 * 404 for the ratings (as for members' chats); someone of another organization gets 404, nobody
 * signed in 401. Hostile queries get a 400 naming the parameter; fifty requests at once all answer
 * the same.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startChatWorld, type ChatWorld } from './support/chat-world.js';
import { possiblyUnset } from './support/possibly-unset.js';
import { TEST_DIALECTS } from './support/test-databases.js';
import { request } from './support/test-server.js';
import { peopleInTwoOrganizations } from './support/two-organizations.js';

const CONCURRENT_REQUESTS = 50;

type Role = 'owner' | 'admin' | 'viewShare' | 'sameOrganizationCreator' | 'learner' | 'otherOrganizationAdmin';

describe.each(TEST_DIALECTS)('assistant insights access on %s', (dialect) => {
  let world: ChatWorld;
  let tokens: Record<Role, string>;
  let assistantId: number;

  beforeAll(async () => {
    world = await startChatWorld(dialect);
    const [owner, viewShare, sameOrganizationCreator, learner, otherOrganizationAdmin] = await peopleInTwoOrganizations(
      world.server,
      world.adminToken,
      [
        { email: 'insights-owner@merino.test', role: 'creator', organization: 'A' },
        { email: 'insights-share@merino.test', role: 'creator', organization: 'A' },
        { email: 'insights-creator@merino.test', role: 'creator', organization: 'A' },
        { email: 'insights-learner@merino.test', role: 'learner', organization: 'A' },
        { email: 'insights-b-admin@merino.test', role: 'admin', organization: 'B' },
      ],
    );
    tokens = {
      owner: owner!,
      admin: world.adminToken,
      viewShare: viewShare!,
      sameOrganizationCreator: sameOrganizationCreator!,
      learner: learner!,
      otherOrganizationAdmin: otherOrganizationAdmin!,
    };
    const created = await request(world.server, 'POST', '/api/assistants', {
      token: tokens.owner,
      body: {
        name: 'Chemistry tutor',
        system_prompt: 'You teach chemistry.',
        metadata: { assistant_type: 'multi_tool', connector: 'openai', llm: 'gpt-4o-mini', tools: [] },
      },
    });
    expect(created.status).toBe(201);
    assistantId = created.body.id;
    await request(world.server, 'PUT', `/api/assistants/${assistantId}/publish`, { token: tokens.owner, body: { published: true } });
    const shared = await request(world.server, 'PUT', `/api/assistants/${assistantId}/shares`, {
      token: tokens.owner,
      body: { user_emails: ['insights-share@merino.test'] },
    });
    expect(shared.status).toBe(200);
  });

  afterAll(async () => {
    await possiblyUnset(world)?.close();
  });

  const insights = (token: string | undefined, query = '') =>
    request(world.server, 'GET', `/api/assistants/${assistantId}/insights${query}`, token === undefined ? {} : { token });
  const feedback = (token: string | undefined, query = '') =>
    request(world.server, 'GET', `/api/assistants/${assistantId}/feedback${query}`, token === undefined ? {} : { token });

  it('answers each role as the access matrix says, with zero violations', async () => {
    const expected: Record<Role, { insights: number; feedback: number }> = {
      owner: { insights: 200, feedback: 200 },
      admin: { insights: 200, feedback: 200 },
      viewShare: { insights: 403, feedback: 404 },
      sameOrganizationCreator: { insights: 403, feedback: 404 },
      learner: { insights: 403, feedback: 404 },
      otherOrganizationAdmin: { insights: 404, feedback: 404 },
    };
    const violations: string[] = [];
    for (const [role, statuses] of Object.entries(expected) as [Role, { insights: number; feedback: number }][]) {
      const seen = { insights: (await insights(tokens[role])).status, feedback: (await feedback(tokens[role])).status };
      if (seen.insights !== statuses.insights || seen.feedback !== statuses.feedback)
        violations.push(`${role}: ${JSON.stringify(seen)} instead of ${JSON.stringify(statuses)}`);
    }
    for (const path of ['insights', 'feedback']) {
      const anonymous = await request(world.server, 'GET', `/api/assistants/${assistantId}/${path}`);
      if (anonymous.status !== 401) violations.push(`anonymous ${path}: ${anonymous.status}`);
      const missing = await request(world.server, 'GET', `/api/assistants/999999/${path}`, { token: tokens.owner });
      if (missing.status !== 404) violations.push(`missing assistant ${path}: ${missing.status}`);
    }
    expect(violations).toEqual([]);
  });

  it('refuses hostile queries with a 400 naming the parameter', async () => {
    const cases: [typeof insights, string, string][] = [
      [insights, '?from=2025-02-30', 'from'],
      [insights, '?from=2025-03-10&to=2025-03-01', 'from'],
      [insights, '?from=2020-01-01&to=2025-01-01', 'to'],
      [insights, "?from=' OR 1=1 --", 'from'],
      [insights, '?format=xml', 'format'],
      [insights, '?limit=5', 'limit'],
      [feedback, '?rating=meh', 'rating'],
      [feedback, '?from=2025-13-01', 'from'],
      [feedback, '?from=2025-03-10&to=2025-03-01', 'from'],
      [feedback, '?limit=0', 'limit'],
      [feedback, `?to=${'9'.repeat(5_000)}`, 'to'],
    ];
    for (const [ask, query, named] of cases) {
      const response = await ask(tokens.owner, query);
      expect({ query, status: response.status }).toEqual({ query, status: 400 });
      expect(JSON.stringify(response.body.error)).toContain(named);
      expect(response.text).not.toMatch(/at [\w.]+ \(|node_modules/);
    }
    const id = await request(world.server, 'GET', '/api/assistants/abc/insights', { token: tokens.owner });
    expect(id.status).toBe(400);
  });

  it('answers fifty requests at once, all alike', async () => {
    const answers = await Promise.all(
      Array.from({ length: CONCURRENT_REQUESTS }, (_, index) => (index % 2 === 0 ? insights(tokens.owner) : feedback(tokens.admin))),
    );
    expect(answers.map((answer) => answer.status)).toEqual(Array.from({ length: CONCURRENT_REQUESTS }, () => 200));
    const insightsBodies = new Set(answers.filter((_, index) => index % 2 === 0).map((answer) => JSON.stringify(answer.body)));
    expect(insightsBodies.size).toBe(1);
  });
});
