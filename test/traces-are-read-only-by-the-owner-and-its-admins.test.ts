/**
 * Proves over real HTTP, on SQLite and PostgreSQL, who may read a verbose assistant's trace
 * (`GET /api/traces/{id}`): its owner, the admins of the assistant's organization and system
 * admins. Everyone else gets the same 404 as for a trace that does not exist, including the
 * learner whose own request made the trace and, above all, the admin of another organization.
 *
 * Why this file exists: letting an admin of any organization read traces failed no test before.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_DIALECTS } from './support/test-databases.js';
import { loginAsAdmin, request, startTestServer, type TestServer } from './support/test-server.js';
import { peopleInTwoOrganizations } from './support/two-organizations.js';
import { possiblyUnset } from './support/possibly-unset.js';

const CALLERS = [
  'the system admin',
  'the organization A admin',
  'the owner in organization A',
  'another creator of organization A',
  'the learner of organization A who chatted',
  'the organization B admin',
  'the owner in organization B',
  'a learner of organization B',
] as const;
type Caller = (typeof CALLERS)[number];

/** Who may read the trace of each organization's assistant. */
const READERS: Record<'A' | 'B', readonly Caller[]> = {
  A: ['the system admin', 'the organization A admin', 'the owner in organization A'],
  B: ['the system admin', 'the organization B admin', 'the owner in organization B'],
};

describe.each(TEST_DIALECTS)('who may read a trace, over HTTP on %s', (dialect) => {
  let server: TestServer;
  const tokens = {} as Record<Caller, string>;
  const traceIds = {} as Record<'A' | 'B', string>;

  /** A published verbose assistant of `owner`, chatted with once by `chatter`; returns the trace id. */
  async function traceOfAChat(owner: string, chatter: string): Promise<string> {
    const created = await request(server, 'POST', '/api/assistants', {
      token: owner,
      body: {
        name: `Verbose ${Math.random()}`,
        system_prompt: 'You are a tutor.',
        metadata: { assistant_type: 'multi_tool', connector: 'bypass', llm: 'simple-bypass', verbose: true, tools: [] },
      },
    });
    expect(created.status, created.text).toBe(201);
    expect(
      (await request(server, 'PUT', `/api/assistants/${created.body.id}/publish`, { token: owner, body: { published: true } })).status,
    ).toBe(200);
    const chat = await request(server, 'POST', '/v1/chat/completions', {
      token: chatter,
      body: { model: `lamb_assistant.${created.body.id}`, messages: [{ role: 'user', content: 'hello' }] },
    });
    expect(chat.status, chat.text).toBe(200);
    expect(chat.body.trace_id).toEqual(expect.any(String));
    return chat.body.trace_id as string;
  }

  beforeAll(async () => {
    server = await startTestServer(dialect);
    const admin = await loginAsAdmin(server);
    tokens['the system admin'] = admin;
    const people = await peopleInTwoOrganizations(server, admin, [
      { email: 'admin.a@merino.test', role: 'admin', organization: 'A' },
      { email: 'owner.a@merino.test', role: 'creator', organization: 'A' },
      { email: 'creator.a@merino.test', role: 'creator', organization: 'A' },
      { email: 'learner.a@merino.test', role: 'learner', organization: 'A' },
      { email: 'admin.b@merino.test', role: 'admin', organization: 'B' },
      { email: 'owner.b@merino.test', role: 'creator', organization: 'B' },
      { email: 'learner.b@merino.test', role: 'learner', organization: 'B' },
    ]);
    CALLERS.slice(1).forEach((caller, index) => (tokens[caller] = people[index]!));
    traceIds.A = await traceOfAChat(tokens['the owner in organization A'], tokens['the learner of organization A who chatted']);
    traceIds.B = await traceOfAChat(tokens['the owner in organization B'], tokens['a learner of organization B']);
  });

  afterAll(async () => {
    await possiblyUnset(server)?.close();
  });

  const cases = (['A', 'B'] as const).flatMap((organization) =>
    CALLERS.map((caller) => ({ organization, caller, allowed: READERS[organization].includes(caller) })),
  );

  it.each(cases)('the trace of organization $organization to $caller: allowed $allowed', async ({ organization, caller, allowed }) => {
    const response = await request(server, 'GET', `/api/traces/${traceIds[organization]}`, { token: tokens[caller] });
    if (allowed) {
      expect(response.status, response.text).toBe(200);
      expect(response.body).toMatchObject({ id: traceIds[organization], outcome: 'completed' });
      return;
    }
    expect(response.status, response.text).toBe(404);
    expect(response.body.error).toMatchObject({ code: 'not_found', message: 'Trace not found.' });
  });

  it('answers a trace id that does not exist with the same 404, so a refusal reveals nothing', async () => {
    const response = await request(server, 'GET', '/api/traces/00000000-0000-4000-8000-000000000000', {
      token: tokens['the organization B admin'],
    });
    expect(response.status).toBe(404);
    expect(response.body.error).toMatchObject({ code: 'not_found', message: 'Trace not found.' });
  });

  it('answers an anonymous caller 401', async () => {
    expect((await request(server, 'GET', `/api/traces/${traceIds.A}`)).status).toBe(401);
  });
});
