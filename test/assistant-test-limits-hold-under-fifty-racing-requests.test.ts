/**
 * Proves on both dialects that the limits of an assistant's tests hold when requests race: 50
 * test cases created at once against TEST_CASES_PER_ASSISTANT_MAX leave exactly the limit, the
 * others refused with 409 `test_cases_limit`; and 50 test runs started at once leave at most
 * TEST_RUNS_RUNNING_PER_ASSISTANT_MAX running, the others refused with 429 `test_runs_limit`
 * (PostgreSQL once counted each request's own snapshot and let several pass).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { possiblyUnset } from './support/possibly-unset.js';
import { startAssistantTestWorld, type AssistantTestWorld } from './support/assistant-test-world.js';
import { TEST_DIALECTS } from './support/test-databases.js';
import { request } from './support/test-server.js';

const CASES_MAXIMUM = 7;
const RUNS_MAXIMUM = 2;
const AT_ONCE = 50;

describe.each(TEST_DIALECTS)('assistant test limits under racing requests on %s', (dialect) => {
  let world: AssistantTestWorld;
  const path = (suffix: string) => `/api/assistants/${world.assistantId}${suffix}`;
  const ownerCall = (method: string, suffix: string, body?: unknown) =>
    request(world.server, method, path(suffix), { token: world.owner.token, ...(body !== undefined && { body }) });

  beforeAll(async () => {
    world = await startAssistantTestWorld(dialect, {
      TEST_CASES_PER_ASSISTANT_MAX: String(CASES_MAXIMUM),
      TEST_RUNS_RUNNING_PER_ASSISTANT_MAX: String(RUNS_MAXIMUM),
    });
  });

  afterAll(async () => {
    await possiblyUnset(world)?.close();
  });

  it('creates exactly the case limit from 50 creates at once and refuses the rest with 409 test_cases_limit', async () => {
    const answers = await Promise.all(
      Array.from({ length: AT_ONCE }, (_, index) =>
        // "until stopped" keeps the runs of the next test running while its starts race.
        ownerCall('POST', '/tests', {
          name: `Case ${index}`,
          kind: 'single_turn',
          turns: ['How do cells divide? Hold it until stopped.'],
          expectations: [{ type: 'contains', phrases: ['mitosis'] }],
        }),
      ),
    );
    const statuses = answers.map((answer) => answer.status);
    expect(statuses.filter((status) => status === 201)).toHaveLength(CASES_MAXIMUM);
    const refused = answers.filter((answer) => answer.status !== 201);
    expect(refused.map((answer) => [answer.status, answer.body.error.code])).toEqual(refused.map(() => [409, 'test_cases_limit']));
    const listed = await ownerCall('GET', '/tests?limit=100');
    expect(listed.body.total).toBe(CASES_MAXIMUM);
  });

  it('leaves at most the running limit from 50 starts at once and refuses the rest with 429 test_runs_limit', async () => {
    const answers = await Promise.all(Array.from({ length: AT_ONCE }, () => ownerCall('POST', '/test-runs', { cases: 'all' })));
    const started = answers.filter((answer) => answer.status === 201);
    expect(started.length).toBeGreaterThanOrEqual(1);
    expect(started.length).toBeLessThanOrEqual(RUNS_MAXIMUM);
    const refused = answers.filter((answer) => answer.status !== 201);
    expect(refused.map((answer) => [answer.status, answer.body.error.code])).toEqual(refused.map(() => [429, 'test_runs_limit']));
    const running = await world.server.store.db
      .selectFrom('assistant_test_runs')
      .select('id')
      .where('assistant_id', '=', world.assistantId)
      .where('status', '=', 'running')
      .execute();
    expect(running.length).toBeLessThanOrEqual(RUNS_MAXIMUM);
    const startedIds = started.map((answer) => answer.body.id);
    for (const run of running) expect(startedIds).toContain(run.id);
    for (const answer of started) await ownerCall('POST', `/test-runs/${answer.body.id}/stop`);
  });
});
