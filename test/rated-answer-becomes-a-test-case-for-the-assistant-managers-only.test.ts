/**
 * Proves, over real HTTP on both stores, that POST /api/assistants/{id}/tests/from-answer turns
 * an answer a learner rated into a test case under exactly the rule of the rated-answers listing:
 * the learner's turns up to the answer (multi_turn for two questions, single_turn for one), the
 * name from the first question, a judged expectation from the thumb-down comment or the
 * thumbed-up answer, and nothing that names the learner. Only the assistant's managers get it,
 * and only while the organization lets owners read chats; a learner, a same-organization
 * creator, a view share and another organization's admin get 404, no credentials 401. Another
 * assistant's answer, an unrated answer, a question, unknown and huge ids are clear 4xx; fifty
 * calls at once each make one case, and the case-count limit holds.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LONG_ANSWER, startAssistantTestWorld, type AssistantTestWorld } from './support/assistant-test-world.js';
import { possiblyUnset } from './support/possibly-unset.js';
import { TEST_DIALECTS } from './support/test-databases.js';
import { createUser, request, type CreatedUser } from './support/test-server.js';
import { peopleInTwoOrganizations } from './support/two-organizations.js';

const CONCURRENT_REQUESTS = 50;
const CASES_MAXIMUM = 60;
const FIRST_QUESTION = '  What is   mitosis?  ';
const SECOND_QUESTION = 'And how is it different from meiosis?';
const COMMENT = 'It never said what meiosis is.';
const LEARNER_NAME = 'Ana Learnerson';

interface Conversation {
  chatId: number;
  /** Each message of the chat, oldest first. */
  messageIds: number[];
}

async function chatWith(world: AssistantTestWorld, learner: CreatedUser, assistantId: number, questions: string[]): Promise<Conversation> {
  const chat = await request(world.server, 'POST', '/api/chats', { token: learner.token, body: { assistant_id: assistantId } });
  expect(chat.status, chat.text).toBe(201);
  for (const content of questions) {
    const asked = await request(world.server, 'POST', `/api/chats/${chat.body.id}/messages`, { token: learner.token, body: { content } });
    expect(asked.status, asked.text).toBeLessThan(300);
  }
  const read = await request(world.server, 'GET', `/api/chats/${chat.body.id}`, { token: learner.token });
  return { chatId: chat.body.id, messageIds: (read.body.messages as { id: number }[]).map((message) => message.id) };
}

async function rate(world: AssistantTestWorld, learner: CreatedUser, conversation: Conversation, body: unknown): Promise<number> {
  const answerId = conversation.messageIds.at(-1)!;
  const rated = await request(world.server, 'PUT', `/api/chats/${conversation.chatId}/messages/${answerId}/feedback`, {
    token: learner.token,
    body,
  });
  expect(rated.status, rated.text).toBe(200);
  return answerId;
}

describe.each(TEST_DIALECTS)('test cases from rated answers on %s', (dialect) => {
  let world: AssistantTestWorld;
  let learner: CreatedUser;
  let outsiders: Record<string, string>;
  let downRated: number;
  let upRated: number;
  let unrated: number;
  let question: number;
  let otherAssistantAnswer: number;
  const path = () => `/api/assistants/${world.assistantId}/tests/from-answer`;
  const fromAnswer = (token: string | undefined, body: unknown) =>
    request(world.server, 'POST', path(), { ...(token !== undefined && { token }), body });
  const setOwnersCanReadChats = (value: boolean) =>
    request(world.server, 'PATCH', `/api/organizations/${world.organizationId}/settings`, {
      token: world.adminToken,
      body: { owners_can_read_chats: value },
    });

  beforeAll(async () => {
    world = await startAssistantTestWorld(dialect, { TEST_CASES_PER_ASSISTANT_MAX: String(CASES_MAXIMUM) });
    learner = await createUser(world.server, world.adminToken, {
      email: 'rated-learner@merino.test',
      role: 'learner',
      name: LEARNER_NAME,
    });
    const [creator, otherLearner, viewShare, otherOrganizationAdmin] = await peopleInTwoOrganizations(world.server, world.adminToken, [
      { email: 'rated-creator@merino.test', role: 'creator', organization: 'A' },
      { email: 'rated-other-learner@merino.test', role: 'learner', organization: 'A' },
      { email: 'rated-share@merino.test', role: 'creator', organization: 'A' },
      { email: 'rated-b-admin@merino.test', role: 'admin', organization: 'B' },
    ]);
    outsiders = {
      'same-organization creator': creator!,
      learner: otherLearner!,
      'view share': viewShare!,
      'other-organization admin': otherOrganizationAdmin!,
    };
    await request(world.server, 'PUT', `/api/assistants/${world.assistantId}/shares`, {
      token: world.owner.token,
      body: { user_emails: ['rated-share@merino.test'] },
    });
    const twoTurns = await chatWith(world, learner, world.assistantId, [FIRST_QUESTION, SECOND_QUESTION]);
    downRated = await rate(world, learner, twoTurns, { rating: 'down', comment: COMMENT });
    question = twoTurns.messageIds[0]!;
    const oneTurn = await chatWith(world, learner, world.assistantId, ['Why do cells divide?']);
    upRated = await rate(world, learner, oneTurn, { rating: 'up' });
    unrated = (await chatWith(world, learner, world.assistantId, ['Unrated question'])).messageIds.at(-1)!;
    const other = await request(world.server, 'POST', '/api/assistants', {
      token: world.adminToken,
      body: { name: 'Other', system_prompt: 'Other.', metadata: { connector: 'openai', llm: 'gpt-4o-mini' } },
    });
    expect(other.status, other.text).toBe(201);
    await request(world.server, 'PUT', `/api/assistants/${other.body.id}/publish`, { token: world.adminToken, body: { published: true } });
    otherAssistantAnswer = await rate(world, learner, await chatWith(world, learner, other.body.id, ['Other question']), {
      rating: 'down',
      comment: 'Other comment',
    });
    const allowed = await setOwnersCanReadChats(true);
    expect(allowed.status, allowed.text).toBe(200);
  });

  afterAll(async () => {
    await possiblyUnset(world)?.close();
  });

  it("makes a multi-turn case of a thumbed-down answer with the learner's turns and the comment as a judged criterion, and never names the learner", async () => {
    const created = await fromAnswer(world.owner.token, { message_id: downRated });
    expect(created.status, created.text).toBe(201);
    expect(created.body).toMatchObject({
      assistant_id: world.assistantId,
      name: 'What is mitosis?',
      kind: 'multi_turn',
      turns: [FIRST_QUESTION, SECOND_QUESTION],
    });
    expect(created.body.expectations).toHaveLength(1);
    expect(created.body.expectations[0].type).toBe('judged');
    expect(created.body.expectations[0].criterion).toContain(COMMENT);
    for (const personal of [LEARNER_NAME, learner.email, 'Learner '])
      expect(created.text.includes(personal), `the case holds "${personal}"`).toBe(false);
    const listed = await request(world.server, 'GET', `/api/assistants/${world.assistantId}/tests`, { token: world.owner.token });
    expect(listed.body.items.map((item: { id: number }) => item.id)).toContain(created.body.id);
  });

  it('makes a single-turn case of a thumbed-up answer that asks to stay as helpful as the rated answer', async () => {
    const created = await fromAnswer(world.owner.token, { message_id: upRated });
    expect(created.status, created.text).toBe(201);
    expect(created.body).toMatchObject({ name: 'Why do cells divide?', kind: 'single_turn', turns: ['Why do cells divide?'] });
    expect(created.body.expectations[0].criterion).toContain(LONG_ANSWER);
    expect(created.body.expectations[0].criterion).toContain('at least as helpful');
  });

  it('lets only the managers make one, and only while the organization lets owners read chats', async () => {
    const violations: string[] = [];
    for (const [who, token] of Object.entries({ ...outsiders, 'rating learner': learner.token })) {
      const answer = await fromAnswer(token, { message_id: downRated });
      if (answer.status !== 404) violations.push(`${who} → ${answer.status}`);
      if (answer.text.includes(COMMENT) || answer.text.includes('mitosis')) violations.push(`${who} saw the conversation`);
    }
    const anonymous = await fromAnswer(undefined, { message_id: downRated });
    if (anonymous.status !== 401) violations.push(`anonymous → ${anonymous.status}`);
    const admin = await fromAnswer(world.adminToken, { message_id: downRated });
    if (admin.status !== 201) violations.push(`organization admin → ${admin.status}`);
    expect(violations).toEqual([]);

    await setOwnersCanReadChats(false);
    const hidden = await fromAnswer(world.owner.token, { message_id: downRated });
    await setOwnersCanReadChats(true);
    expect(hidden.status).toBe(404);
    expect(hidden.body.error.param).toBe('message_id');
  });

  it('refuses hostile input with a clear 4xx naming the problem', async () => {
    const cases: [unknown, number, string][] = [
      [{ message_id: otherAssistantAnswer }, 404, 'message_id'],
      [{ message_id: unrated }, 404, 'message_id'],
      [{ message_id: question }, 404, 'message_id'],
      [{ message_id: 2_000_000_000 }, 404, 'message_id'],
      [{ message_id: 2_147_483_648 }, 400, 'message_id'],
      [{ message_id: 1e300 }, 400, 'message_id'],
      [{ message_id: 'abc' }, 400, 'message_id'],
      [{ message_id: -1 }, 400, 'message_id'],
      [{}, 400, 'message_id'],
      [{ message_id: downRated, learner: 'x' }, 400, 'learner'],
    ];
    for (const [body, status, named] of cases) {
      const answer = await fromAnswer(world.owner.token, body);
      expect({ body, status: answer.status }).toEqual({ body, status });
      expect(answer.text).toContain(named);
      expect(answer.text).not.toContain('Other comment');
    }
    const foreignAssistant = await request(world.server, 'POST', '/api/assistants/2147483647/tests/from-answer', {
      token: world.owner.token,
      body: { message_id: downRated },
    });
    expect(foreignAssistant.status).toBe(404);
  });

  it('makes one case per call for fifty calls at once, then holds the case-count limit', async () => {
    const before = (await request(world.server, 'GET', `/api/assistants/${world.assistantId}/tests?limit=1`, { token: world.owner.token }))
      .body.total as number;
    const answers = await Promise.all(
      Array.from({ length: CONCURRENT_REQUESTS }, () => fromAnswer(world.owner.token, { message_id: downRated })),
    );
    expect(answers.map((answer) => answer.status)).toEqual(Array.from({ length: CONCURRENT_REQUESTS }, () => 201));
    expect(new Set(answers.map((answer) => answer.body.id)).size).toBe(CONCURRENT_REQUESTS);
    let total = before + CONCURRENT_REQUESTS;
    while (total < CASES_MAXIMUM) {
      expect((await fromAnswer(world.owner.token, { message_id: upRated })).status).toBe(201);
      total += 1;
    }
    const refused = await fromAnswer(world.owner.token, { message_id: upRated });
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe('test_cases_limit');
    const stored = await world.server.store.db.selectFrom('assistant_test_cases').select('id').execute();
    expect(stored).toHaveLength(CASES_MAXIMUM);
  });
});
