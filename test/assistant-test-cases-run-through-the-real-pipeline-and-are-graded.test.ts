/**
 * Proves, over real HTTP on both stores with a fake model scripted per prompt, that an
 * assistant's test cases run through the real pipeline (the context tool, the function-tool loop,
 * usage rows) and are graded: a passing and a failing case of every expectation type; a judge
 * that times out or answers no verdict gives `not_judged`, never a pass; a multi-turn case keeps
 * its history; a draft run changes nothing saved; compare lists exactly the cases whose verdict
 * changed; stop ends a run and keeps its finished results; progress comes as server-sent events;
 * no chat is kept, and the model calls are in usage as test traffic for the owner.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serverSentEvents } from './support/chat-world.js';
import {
  BRIEF_ANSWER,
  finishedRun,
  LONG_ANSWER,
  startAssistantTestWorld,
  type AssistantTestWorld,
} from './support/assistant-test-world.js';
import { possiblyUnset } from './support/possibly-unset.js';
import { TEST_DIALECTS } from './support/test-databases.js';
import { request } from './support/test-server.js';

const QUESTION = 'How do cells divide?';

/** name → [expectation, expected verdict, question]. */
function expectationCases(filePath: string): Record<string, [Record<string, unknown>, string, string?]> {
  return {
    'contains passes': [{ type: 'contains', phrases: ['MITOSIS', 'nucleus'] }, 'pass'],
    'contains fails': [{ type: 'contains', phrases: ['mitosis', 'meiosis'] }, 'fail'],
    'not_contains passes': [{ type: 'not_contains', phrases: ['meiosis'] }, 'pass'],
    'not_contains fails': [{ type: 'not_contains', phrases: ['Chromosomes'] }, 'fail'],
    'cites_source passes': [{ type: 'cites_source', file_path: filePath }, 'pass'],
    'cites_source fails': [{ type: 'cites_source', knowledge_base_id: 'not-a-source' }, 'fail'],
    'calls_tool passes': [{ type: 'calls_tool', tool: 'list_documents' }, 'pass', 'list please, then answer'],
    'calls_tool fails': [{ type: 'calls_tool', tool: 'list_documents' }, 'fail'],
    'does_not_call_tool passes': [{ type: 'does_not_call_tool', tool: 'list_documents' }, 'pass'],
    'does_not_call_tool fails': [{ type: 'does_not_call_tool', tool: 'single_file_rag' }, 'fail'],
    'max_tool_rounds passes': [{ type: 'max_tool_rounds', rounds: 1 }, 'pass', 'list please, then answer'],
    'max_tool_rounds fails': [{ type: 'max_tool_rounds', rounds: 0 }, 'fail', 'list please, then answer'],
    'max_length passes': [{ type: 'max_length', characters: 200 }, 'pass'],
    'max_length fails': [{ type: 'max_length', characters: 20 }, 'fail'],
    'language passes': [{ type: 'language', language: 'en' }, 'pass'],
    'language fails': [{ type: 'language', language: 'es' }, 'fail'],
    'judged passes': [{ type: 'judged', criterion: '[judge:pass] explains mitosis' }, 'pass'],
    'judged fails': [{ type: 'judged', criterion: '[judge:fail] explains meiosis' }, 'fail'],
    'judged mixed': [{ type: 'judged', criterion: '[judge:mixed] explains both' }, 'mixed'],
    'judge timing out is not judged': [{ type: 'judged', criterion: '[judge:slow] explains mitosis' }, 'not_judged'],
    'judge answering no verdict is not judged': [{ type: 'judged', criterion: '[judge:garbage] explains mitosis' }, 'not_judged'],
  };
}

describe.each(TEST_DIALECTS)('assistant test runs on %s', (dialect) => {
  let world: AssistantTestWorld;
  const path = (suffix = '') => `/api/assistants/${world.assistantId}${suffix}`;
  const ownerCall = (method: string, suffix: string, body?: unknown) =>
    request(world.server, method, path(suffix), { token: world.owner.token, ...(body !== undefined && { body }) });
  const caseIds = new Map<string, number>();

  beforeAll(async () => {
    world = await startAssistantTestWorld(dialect);
    for (const [name, [expectation, , question]] of Object.entries(expectationCases(world.filePath))) {
      const created = await ownerCall('POST', '/tests', {
        name,
        kind: 'single_turn',
        turns: [question ?? QUESTION],
        expectations: [expectation],
      });
      expect(created.status, created.text).toBe(201);
      caseIds.set(name, created.body.id);
    }
  });

  afterAll(async () => {
    await possiblyUnset(world)?.close();
  });

  it('grades a passing and a failing case of every expectation type, and a judge that does not answer as not judged', async () => {
    const estimate = await ownerCall('POST', '/test-runs/estimate', { cases: 'all' });
    expect(estimate.status, estimate.text).toBe(200);
    expect(estimate.body.case_count).toBe(caseIds.size);
    expect(estimate.body.estimated_cost_usd).toBeGreaterThan(0);
    const started = await ownerCall('POST', '/test-runs', { cases: 'all' });
    expect(started.status, started.text).toBe(201);
    expect(started.body.status).toBe('running');
    const run = await finishedRun(world, started.body.id);
    expect(run.status).toBe('completed');
    const verdicts = Object.fromEntries(run.results.map((result: any) => [result.case_name, result.verdict]));
    const expected = Object.fromEntries(Object.entries(expectationCases(world.filePath)).map(([name, [, verdict]]) => [name, verdict]));
    expect(verdicts).toEqual(expected);
    const judged = run.results.find((result: any) => result.case_name === 'judged passes');
    expect(judged.expectations[0]).toMatchObject({ verdict: 'pass', score: 0.9, reasons: ['judged pass'] });
    const timedOut = run.results.find((result: any) => result.case_name === 'judge timing out is not judged');
    expect(timedOut.expectations[0].score).toBeNull();
    const withTool = run.results.find((result: any) => result.case_name === 'calls_tool passes');
    expect(withTool.tool_steps).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ tool: 'single_file_rag', round: null }),
        expect.objectContaining({ tool: 'list_documents', function: 'list_documents', round: 1 }),
      ]),
    );
    expect(withTool.sources).toEqual(expect.arrayContaining([expect.objectContaining({ url: world.filePath })]));
    expect(withTool.prompt_tokens).toBeGreaterThan(0);
    expect(run.cost_usd).toBeGreaterThan(0);
  });

  it('runs a multi-turn case with its history, keeps no chat, and counts its calls as test traffic for the owner', async () => {
    const created = await ownerCall('POST', '/tests', {
      name: 'two turns',
      kind: 'multi_turn',
      turns: ['Hello there', QUESTION],
      expectations: [{ type: 'contains', phrases: ['mitosis'] }],
    });
    // The organization's admin starts it: the calls are still the owner's.
    const started = await request(world.server, 'POST', path('/test-runs'), {
      token: world.adminToken,
      body: { cases: [created.body.id] },
    });
    expect(started.status, started.text).toBe(201);
    const run = await finishedRun(world, started.body.id);
    expect(run.results).toHaveLength(1);
    expect(run.results[0].answers).toEqual([LONG_ANSWER, LONG_ANSWER]);
    const second = world.provider.requests.filter(
      (entry) => JSON.stringify(entry.body).includes(QUESTION) && JSON.stringify(entry.body).includes('Hello there'),
    );
    expect(second.length).toBeGreaterThan(0);
    const chats = await world.server.store.db.selectFrom('chats').select('id').execute();
    const messages = await world.server.store.db.selectFrom('chat_messages').select('id').execute();
    expect([chats.length, messages.length]).toEqual([0, 0]);
    const rows = await world.server.store.db.selectFrom('usage_logs').select(['user_id', 'traffic', 'assistant_id']).execute();
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.every((row) => row.traffic === 'test' && row.user_id === world.owner.id && row.assistant_id === world.assistantId)).toBe(
      true,
    );
    const usage = await request(world.server, 'GET', `/api/usage?group_by=user&assistant_id=${world.assistantId}`, {
      token: world.owner.token,
    });
    expect(usage.status, usage.text).toBe(200);
    expect(usage.body.totals.requests).toBe(rows.length);
  });

  it('runs a draft without changing the saved assistant, and compare lists exactly the cases whose verdict changed', async () => {
    const before = await ownerCall('GET', '');
    const chosen = ['max_length passes', 'max_length fails', 'contains passes', 'language passes'].map((name) => caseIds.get(name)!);
    const saved = await finishedRun(world, (await ownerCall('POST', '/test-runs', { cases: chosen })).body.id);
    const draftStarted = await ownerCall('POST', '/test-runs', { cases: chosen, draft: { system_prompt: 'Be brief.' } });
    expect(draftStarted.status, draftStarted.text).toBe(201);
    expect(draftStarted.body.snapshot_source).toBe('draft');
    const draft = await finishedRun(world, draftStarted.body.id);
    const after = await ownerCall('GET', '');
    expect(after.body).toEqual(before.body);
    const compared = await ownerCall('GET', `/test-runs/compare?base=${saved.id}&head=${draft.id}`);
    expect(compared.status, compared.text).toBe(200);
    // Brief: "Mitosis." now fits 20 characters, lacks "nucleus", and has too few words to be English.
    expect(compared.body.changed.map((entry: any) => [entry.case_name, entry.base_verdict, entry.head_verdict]).sort()).toEqual(
      [
        ['contains passes', 'pass', 'fail'],
        ['language passes', 'pass', 'fail'],
        ['max_length fails', 'fail', 'pass'],
      ].sort(),
    );
    expect(compared.body.changed[0]).toMatchObject({ base_answer: LONG_ANSWER, head_answer: BRIEF_ANSWER });
    const unchanged = await ownerCall('GET', `/test-runs/compare?base=${saved.id}&head=${saved.id}`);
    expect(unchanged.body.changed).toEqual([]);
  });

  it('follows a run as server-sent events and stops it keeping the finished results', async () => {
    const slow = [];
    for (let index = 0; index < 6; index += 1)
      slow.push(
        (
          await ownerCall('POST', '/tests', {
            name: `held ${index}`,
            kind: 'single_turn',
            turns: [`question ${index}, held until stopped`],
            expectations: [{ type: 'contains', phrases: ['mitosis'] }],
          })
        ).body.id,
      );
    const quick = caseIds.get('contains passes')!;
    const started = await ownerCall('POST', '/test-runs', { cases: [quick, ...slow] });
    expect(started.status, started.text).toBe(201);
    const events = fetch(`${world.server.baseUrl}${path(`/test-runs/${started.body.id}/events`)}`, {
      headers: { authorization: `Bearer ${world.owner.token}` },
    }).then((response) => response.text());
    // The quick case finishes first (TEST_RUN_CONCURRENCY is 4; the held ones wait on the fake until the stop).
    let run = (await ownerCall('GET', `/test-runs/${started.body.id}`)).body;
    while (run.finished_count === 0) run = (await ownerCall('GET', `/test-runs/${started.body.id}`)).body;
    const stopped = await ownerCall('POST', `/test-runs/${started.body.id}/stop`);
    expect(stopped.status, stopped.text).toBe(200);
    expect(stopped.body.status).toBe('stopped');
    expect(stopped.body.results.map((result: any) => result.case_id)).toContain(quick);
    expect(stopped.body.finished_count).toBeLessThan(stopped.body.case_count);
    const streamed = serverSentEvents(await events) as { type: string; run: { status: string } }[];
    expect(streamed.at(-1)).toMatchObject({ type: 'end', run: { status: 'stopped' } });
    const again = await ownerCall('POST', `/test-runs/${started.body.id}/stop`);
    expect(again.body.results).toEqual(stopped.body.results);
  });

  it('stops one run at once while another run of the assistant still runs', async () => {
    const held = await ownerCall('POST', '/tests', {
      name: 'held alone',
      kind: 'single_turn',
      turns: ['a question held until stopped'],
      expectations: [{ type: 'contains', phrases: ['mitosis'] }],
    });
    const first = await ownerCall('POST', '/test-runs', { cases: [held.body.id] });
    const second = await ownerCall('POST', '/test-runs', { cases: [held.body.id] });
    expect([first.status, second.status], second.text).toEqual([201, 201]);
    const stopped = await ownerCall('POST', `/test-runs/${first.body.id}/stop`);
    expect(stopped.body.status).toBe('stopped');
    expect((await ownerCall('GET', `/test-runs/${second.body.id}`)).body.status).toBe('running');
    expect((await ownerCall('POST', `/test-runs/${second.body.id}/stop`)).body.status).toBe('stopped');
  });
});
