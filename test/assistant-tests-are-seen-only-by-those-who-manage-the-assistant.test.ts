/**
 * Proves, over real HTTP on both stores, that every assistant-tests endpoint answers only those
 * who manage the assistant: the owner and the organization's admin get through; a creator of the
 * same organization, a learner (who may chat with the published assistant), a user it is shared
 * with to view, and another organization's admin get 404 on every one, and no credentials 401 —
 * zero violations over the whole matrix. Hostile input gets a clear 4xx naming the problem, and
 * fifty case creations at once, as many runs at once, and fifty reads at once behave.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { finishedRun, startAssistantTestWorld, type AssistantTestWorld } from './support/assistant-test-world.js';
import { possiblyUnset } from './support/possibly-unset.js';
import { TEST_DIALECTS } from './support/test-databases.js';
import { createUser, request } from './support/test-server.js';
import { peopleInTwoOrganizations } from './support/two-organizations.js';

const CONCURRENT_REQUESTS = 50;
const CASE = {
  name: 'Cells',
  kind: 'single_turn',
  turns: ['How do cells divide?'],
  expectations: [{ type: 'contains', phrases: ['mitosis'] }],
};

interface Endpoint {
  method: string;
  path: string;
  body?: unknown;
  /** The status whoever manages the assistant gets. */
  managerStatus: number;
}

describe.each(TEST_DIALECTS)('who sees assistant tests on %s', (dialect) => {
  let world: AssistantTestWorld;
  let outsiders: Record<string, string>;
  let caseId: number;
  let runId: number;

  beforeAll(async () => {
    world = await startAssistantTestWorld(dialect);
    const [sameOrganizationCreator, learner, viewShare, otherOrganizationAdmin] = await peopleInTwoOrganizations(
      world.server,
      world.adminToken,
      [
        { email: 'tests-creator@merino.test', role: 'creator', organization: 'A' },
        { email: 'tests-learner@merino.test', role: 'learner', organization: 'A' },
        { email: 'tests-share@merino.test', role: 'creator', organization: 'A' },
        { email: 'tests-b-admin@merino.test', role: 'admin', organization: 'B' },
      ],
    );
    outsiders = {
      'same-organization creator': sameOrganizationCreator!,
      learner: learner!,
      'view share': viewShare!,
      'other-organization admin': otherOrganizationAdmin!,
    };
    const shared = await request(world.server, 'PUT', `/api/assistants/${world.assistantId}/shares`, {
      token: world.owner.token,
      body: { user_emails: ['tests-share@merino.test'] },
    });
    expect(shared.status, shared.text).toBe(200);
    caseId = (await request(world.server, 'POST', `/api/assistants/${world.assistantId}/tests`, { token: world.owner.token, body: CASE }))
      .body.id;
    const started = await request(world.server, 'POST', `/api/assistants/${world.assistantId}/test-runs`, {
      token: world.owner.token,
      body: { cases: 'all' },
    });
    runId = (await finishedRun(world, started.body.id)).id;
  });

  afterAll(async () => {
    await possiblyUnset(world)?.close();
  });

  const endpoints = (): Endpoint[] => {
    const base = `/api/assistants/${world.assistantId}`;
    return [
      { method: 'GET', path: `${base}/tests`, managerStatus: 200 },
      { method: 'POST', path: `${base}/tests`, body: CASE, managerStatus: 201 },
      { method: 'GET', path: `${base}/tests/${caseId}`, managerStatus: 200 },
      { method: 'PUT', path: `${base}/tests/${caseId}`, body: CASE, managerStatus: 200 },
      { method: 'GET', path: `${base}/test-presets`, managerStatus: 200 },
      { method: 'POST', path: `${base}/test-presets`, body: { keys: ['off_topic'] }, managerStatus: 201 },
      { method: 'POST', path: `${base}/test-runs/estimate`, body: { cases: 'all' }, managerStatus: 200 },
      { method: 'GET', path: `${base}/test-runs`, managerStatus: 200 },
      { method: 'GET', path: `${base}/test-runs/${runId}`, managerStatus: 200 },
      { method: 'GET', path: `${base}/test-runs/compare?base=${runId}&head=${runId}`, managerStatus: 200 },
      { method: 'POST', path: `${base}/test-runs/${runId}/stop`, managerStatus: 200 },
      { method: 'GET', path: `${base}/test-runs/${runId}/events`, managerStatus: 200 },
      { method: 'POST', path: `${base}/test-runs`, body: { cases: [caseId] }, managerStatus: 201 },
      { method: 'DELETE', path: `${base}/tests/${caseId}`, managerStatus: 204 },
    ];
  };

  it('lets nobody but the managers see or change tests: zero violations over every endpoint and role', async () => {
    const violations: string[] = [];
    const check = async (who: string, token: string | undefined, endpoint: Endpoint, expected: number) => {
      const answer = await request(world.server, endpoint.method, endpoint.path, {
        ...(token !== undefined && { token }),
        body: endpoint.body,
      });
      if (answer.status !== expected)
        violations.push(`${who}: ${endpoint.method} ${endpoint.path} → ${answer.status}, expected ${expected}`);
      if (expected >= 400 && (answer.text.includes('Cells') || answer.text.includes('mitosis')))
        violations.push(`${who}: ${endpoint.path} leaked a case`);
    };
    for (const endpoint of endpoints()) {
      for (const [who, token] of Object.entries(outsiders)) await check(who, token, endpoint, 404);
      await check('anonymous', undefined, endpoint, 401);
    }
    // The managers last, so that the deleting request comes after everyone's reads.
    for (const endpoint of endpoints()) await check('organization admin', world.adminToken, endpoint, endpoint.managerStatus);
    await world.server.services.testRuns.idle();
    caseId = (await request(world.server, 'POST', `/api/assistants/${world.assistantId}/tests`, { token: world.owner.token, body: CASE }))
      .body.id;
    for (const endpoint of endpoints()) await check('owner', world.owner.token, endpoint, endpoint.managerStatus);
    await world.server.services.testRuns.idle();
    expect(violations).toEqual([]);
  });

  it('refuses hostile input with a clear 4xx naming the problem', async () => {
    const base = `/api/assistants/${world.assistantId}`;
    const send = (method: string, path: string, body?: unknown) =>
      request(world.server, method, path, { token: world.owner.token, ...(body !== undefined && { body }) });
    const cases: [string, Promise<any>, number, string][] = [
      [
        'a regular expression is just text',
        send('POST', `${base}/tests`, { ...CASE, expectations: [{ type: 'contains', phrases: ['(a+)+$'] }] }),
        201,
        '',
      ],
      ['too many turns', send('POST', `${base}/tests`, { ...CASE, turns: Array.from({ length: 11 }, () => 'hi') }), 400, 'turns'],
      ['a turn too long', send('POST', `${base}/tests`, { ...CASE, turns: ['x'.repeat(4_001)] }), 400, 'turns'],
      [
        'an unknown expectation',
        send('POST', `${base}/tests`, { ...CASE, expectations: [{ type: 'regex', pattern: '.*' }] }),
        400,
        'expectations',
      ],
      [
        'a judged expectation with both criterion and rubric',
        send('POST', `${base}/tests`, { ...CASE, expectations: [{ type: 'judged', criterion: 'x', rubric_id: 'r' }] }),
        400,
        'expectations',
      ],
      ['an unknown kind', send('POST', `${base}/tests`, { ...CASE, kind: 'chaos' }), 400, 'kind'],
      ['a foreign case id', send('GET', `${base}/tests/999999`), 404, 'Test case'],
      ['an id out of range', send('GET', `${base}/tests/99999999999`), 400, 'caseId'],
      ['a run of a case that is not there', send('POST', `${base}/test-runs`, { cases: [999999] }), 404, 'Test case'],
      ['a draft changing the owner', send('POST', `${base}/test-runs`, { cases: 'all', draft: { owner_id: 1 } }), 400, 'draft.owner_id'],
      [
        'a draft with bad metadata',
        send('POST', `${base}/test-runs`, { cases: 'all', draft: { metadata: { tools: [{ type: 'no_such_tool' }] } } }),
        400,
        '',
      ],
      ['compare without head', send('GET', `${base}/test-runs/compare?base=1`), 400, 'head'],
      ['compare of a foreign run', send('GET', `${base}/test-runs/compare?base=999999&head=999999`), 404, 'Test run'],
      ['an unknown preset', send('POST', `${base}/test-presets`, { keys: ['nope'] }), 400, 'keys'],
    ];
    for (const [what, answer, status, named] of cases) {
      const response = await answer;
      expect(response.status, `${what}: ${response.text}`).toBe(status);
      if (status >= 400) {
        expect(response.body.error.code, what).toBeTypeOf('string');
        expect(response.text, what).toContain(named);
        expect(response.text, what).not.toMatch(/at .*\.ts:\d+/);
      }
    }
  });

  it("names the refused field of an expectation by its type's own fields, never the nine shapes it might have been", async () => {
    const refused: [unknown, string][] = [
      [{ type: 'max_length', characters: 0 }, 'expectations[0].characters'],
      [{ type: 'contains', phrases: [] }, 'expectations[0].phrases'],
      [{ type: 'judged', criterion: '' }, 'expectations[0].criterion'],
    ];
    for (const [expectation, field] of refused) {
      const answer = await request(world.server, 'POST', `/api/assistants/${world.assistantId}/tests`, {
        token: world.owner.token,
        body: { ...CASE, expectations: [expectation] },
      });
      expect(answer.status, answer.text).toBe(400);
      expect(answer.body.error.param).toBe(field);
      expect(answer.text).not.toContain('oneOf');
      expect(answer.text).not.toContain('is not a known field');
    }
  });

  it('takes fifty case creations, fifty reads and fifty run starts at once', async () => {
    const base = `/api/assistants/${world.assistantId}`;
    const token = world.owner.token;
    const creations = await Promise.all(
      Array.from({ length: CONCURRENT_REQUESTS }, (_unused, index) =>
        request(world.server, 'POST', `${base}/tests`, { token, body: { ...CASE, name: `Many ${index}` } }),
      ),
    );
    expect(creations.map((answer) => answer.status)).toEqual(Array(CONCURRENT_REQUESTS).fill(201));
    const reads = await Promise.all(
      Array.from({ length: CONCURRENT_REQUESTS }, () => request(world.server, 'GET', `${base}/tests?limit=200`, { token })),
    );
    expect(new Set(reads.map((answer) => `${answer.status}:${answer.body.total}`)).size).toBe(1);
    // A case the fake answers only once stopped, so that every start comes while the first runs still run.
    const held = await request(world.server, 'POST', `${base}/tests`, {
      token,
      body: { ...CASE, name: 'Held', turns: ['a question held until stopped'] },
    });
    const starts = await Promise.all(
      Array.from({ length: CONCURRENT_REQUESTS }, () =>
        request(world.server, 'POST', `${base}/test-runs`, { token, body: { cases: [held.body.id] } }),
      ),
    );
    const statuses = starts.map((answer) => answer.status);
    expect(statuses.every((status) => status === 201 || status === 429)).toBe(true);
    // SQLite serializes the check and the insert; PostgreSQL may let a racing one through the bound.
    expect(statuses.filter((status) => status === 201).length).toBeGreaterThanOrEqual(1);
    expect(statuses.filter((status) => status === 201).length).toBeLessThanOrEqual(dialect === 'sqlite' ? 2 : CONCURRENT_REQUESTS);
    // Each stop ends its own run at once, while the others still run.
    for (const started of starts.filter((answer) => answer.status === 201)) {
      const stopped = await request(world.server, 'POST', `${base}/test-runs/${started.body.id}/stop`, { token });
      expect(stopped.body.status).toBe('stopped');
    }
    await world.server.services.testRuns.idle();
    const learnerOfB = await createUser(world.server, world.adminToken, { email: 'tests-late@merino.test', role: 'learner' });
    const hidden = await Promise.all(
      Array.from({ length: CONCURRENT_REQUESTS }, () => request(world.server, 'GET', `${base}/tests`, { token: learnerOfB.token })),
    );
    expect(hidden.every((answer) => answer.status === 404)).toBe(true);
  });
});
