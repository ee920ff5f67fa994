/**
 * A thumb up or down, with an optional comment, on an answer (docs/chats.md, "Feedback"): only the
 * chat's owner may give, change or take it back, and reads it with the chat; the assistant's
 * managers read members' ratings through GET /api/assistants/{id}/feedback, by pseudonym, only
 * where the members' organization lets owners read chats; another learner, another member or
 * someone of another organization gets 404, and 401 without credentials. Hostile input is a
 * clear 400 or 404; fifty ratings of one answer at once leave exactly one.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startChat, startChatWorld, type ChatWorld } from './support/chat-world.js';
import { possiblyUnset } from './support/possibly-unset.js';
import { TEST_DIALECTS } from './support/test-databases.js';
import { createUser, request } from './support/test-server.js';
import { peopleInTwoOrganizations } from './support/two-organizations.js';

const CONCURRENT_REQUESTS = 50;
const COMMENT = 'The answer forgot meiosis.';

describe.each(TEST_DIALECTS)('answer feedback on %s', (dialect) => {
  let world: ChatWorld;
  let learner: { token: string; email: string };
  let others: Record<'sameOrganizationCreator' | 'otherOrganizationAdmin' | 'otherLearner', string>;
  let chatId: number;
  let questionId: number;
  let answerId: number;
  let organizationId: number;

  beforeAll(async () => {
    world = await startChatWorld(dialect);
    organizationId = (await request(world.server, 'GET', '/api/me', { token: world.adminToken })).body.organization_id;
    learner = await createUser(world.server, world.adminToken, { email: 'feedback-learner@merino.test', role: 'learner' });
    const [sameOrganizationCreator, otherOrganizationAdmin, otherLearner] = await peopleInTwoOrganizations(world.server, world.adminToken, [
      { email: 'feedback-creator@merino.test', role: 'creator', organization: 'A' },
      { email: 'feedback-b-admin@merino.test', role: 'admin', organization: 'B' },
      { email: 'feedback-other-learner@merino.test', role: 'learner', organization: 'A' },
    ]);
    others = {
      sameOrganizationCreator: sameOrganizationCreator!,
      otherOrganizationAdmin: otherOrganizationAdmin!,
      otherLearner: otherLearner!,
    };
    chatId = await startChat(world, learner.token);
    world.provider.enqueue({ text: 'Cells divide by mitosis.' });
    await request(world.server, 'POST', `/api/chats/${chatId}/messages`, {
      token: learner.token,
      body: { content: 'How do cells divide?' },
    });
    const messages = (await request(world.server, 'GET', `/api/chats/${chatId}`, { token: learner.token })).body.messages as {
      id: number;
    }[];
    questionId = messages[0]!.id;
    answerId = messages[1]!.id;
  });

  afterAll(async () => {
    await possiblyUnset(world)?.close();
  });

  const feedbackPath = () => `/api/chats/${chatId}/messages/${answerId}/feedback`;
  const assistantFeedback = (token: string | undefined) =>
    request(world.server, 'GET', `/api/assistants/${world.assistantId}/feedback`, token === undefined ? {} : { token });
  const setOwnersCanReadChats = (value: boolean) =>
    request(world.server, 'PATCH', `/api/organizations/${organizationId}/settings`, {
      token: world.adminToken,
      body: { owners_can_read_chats: value },
    });

  it('keeps the owner’s thumb down with its comment and shows it with the chat', async () => {
    const rated = await request(world.server, 'PUT', feedbackPath(), {
      token: learner.token,
      body: { rating: 'down', comment: ` ${COMMENT} ` },
    });
    expect(rated.status).toBe(200);
    expect(rated.body).toMatchObject({ rating: 'down', comment: COMMENT });
    const chat = await request(world.server, 'GET', `/api/chats/${chatId}`, { token: learner.token });
    expect(chat.body.messages[1].feedback).toMatchObject({ rating: 'down', comment: COMMENT });
    expect(chat.body.messages[0].feedback).toBeNull();
  });

  it('shows members’ ratings to the assistant’s owner by pseudonym, only while the organization allows it', async () => {
    await request(world.server, 'PUT', feedbackPath(), { token: learner.token, body: { rating: 'down', comment: COMMENT } });
    const hidden = await assistantFeedback(world.adminToken);
    expect(hidden.status).toBe(200);
    expect(hidden.body).toEqual({ items: [], total: 0 });

    await setOwnersCanReadChats(true);
    const read = await assistantFeedback(world.adminToken);
    expect(read.body.total).toBe(1);
    expect(read.body.items[0]).toMatchObject({ chat_id: chatId, message_id: answerId, rating: 'down', comment: COMMENT });
    expect(read.body.items[0].learner).toMatch(/^Learner [0-9a-f]{6}$/);
    expect(read.text).not.toContain(learner.email);
    await setOwnersCanReadChats(false);
  });

  it('shows nobody else a rating, on any route, and lets nobody else give one', async () => {
    await request(world.server, 'PUT', feedbackPath(), { token: learner.token, body: { rating: 'down', comment: COMMENT } });
    await setOwnersCanReadChats(true);
    for (const [who, token] of Object.entries({ ...others, assistantOwner: world.adminToken })) {
      for (const method of ['PUT', 'DELETE']) {
        const response = await request(world.server, method, feedbackPath(), {
          token,
          body: method === 'PUT' ? { rating: 'up' } : undefined,
        });
        expect({ who, method, status: response.status }).toEqual({ who, method, status: 404 });
      }
      expect((await request(world.server, 'GET', `/api/chats/${chatId}`, { token })).status).toBe(404);
    }
    for (const [who, token] of Object.entries({ ...others, learner: learner.token })) {
      const response = await assistantFeedback(token);
      expect({ who, status: response.status }).toEqual({ who, status: 404 });
      expect(response.text).not.toContain(COMMENT);
    }
    expect((await assistantFeedback(undefined)).status).toBe(401);
    expect((await request(world.server, 'PUT', feedbackPath(), { body: { rating: 'up' } })).status).toBe(401);
    expect((await request(world.server, 'DELETE', feedbackPath())).status).toBe(401);
    const unchanged = await request(world.server, 'GET', `/api/chats/${chatId}`, { token: learner.token });
    expect(unchanged.body.messages[1].feedback).toMatchObject({ rating: 'down', comment: COMMENT });
    await setOwnersCanReadChats(false);
  });

  it('changes and takes back a rating', async () => {
    const changed = await request(world.server, 'PUT', feedbackPath(), { token: learner.token, body: { rating: 'up', comment: '  ' } });
    expect(changed.body).toMatchObject({ rating: 'up', comment: null });
    expect((await request(world.server, 'DELETE', feedbackPath(), { token: learner.token })).status).toBe(204);
    const chat = await request(world.server, 'GET', `/api/chats/${chatId}`, { token: learner.token });
    expect(chat.body.messages[1].feedback).toBeNull();
  });

  it('refuses hostile input with a clear 4xx naming the problem', async () => {
    const tooLong = 'x'.repeat(2_001);
    const cases: [string, unknown, number, string][] = [
      [feedbackPath(), { rating: 'meh' }, 400, 'rating'],
      [feedbackPath(), {}, 400, 'rating'],
      [feedbackPath(), { rating: 'up', comment: tooLong }, 400, 'comment'],
      [feedbackPath(), { rating: 'up', comment: 42 }, 400, 'comment'],
      [feedbackPath(), { rating: 'up', stars: 5 }, 400, 'stars'],
      [`/api/chats/${chatId}/messages/${questionId}/feedback`, { rating: 'up' }, 404, 'messageId'],
      [`/api/chats/${chatId}/messages/999999/feedback`, { rating: 'up' }, 404, 'messageId'],
      [`/api/chats/${chatId}/messages/abc/feedback`, { rating: 'up' }, 400, 'messageId'],
    ];
    for (const [path, body, status, named] of cases) {
      const response = await request(world.server, 'PUT', path, { token: learner.token, body });
      expect({ path, body: JSON.stringify(body).slice(0, 40), status: response.status }).toEqual({
        path,
        body: JSON.stringify(body).slice(0, 40),
        status,
      });
      expect(JSON.stringify(response.body.error)).toContain(named);
      expect(response.text).not.toContain(tooLong);
    }
    const badPage = await request(world.server, 'GET', `/api/assistants/${world.assistantId}/feedback?limit=100000`, {
      token: world.adminToken,
    });
    expect(badPage.status).toBe(400);
    expect(JSON.stringify(badPage.body.error)).toContain('limit');
  });

  it(`keeps exactly one rating when ${CONCURRENT_REQUESTS} arrive at once, and serves ${CONCURRENT_REQUESTS} readers at once`, async () => {
    const ratings = await Promise.all(
      Array.from({ length: CONCURRENT_REQUESTS }, (_, index) =>
        request(world.server, 'PUT', feedbackPath(), {
          token: learner.token,
          body: { rating: index % 2 === 0 ? 'up' : 'down', comment: `Comment ${index}` },
        }),
      ),
    );
    expect(ratings.map((response) => response.status)).toEqual(ratings.map(() => 200));
    await setOwnersCanReadChats(true);
    const reads = await Promise.all(Array.from({ length: CONCURRENT_REQUESTS }, () => assistantFeedback(world.adminToken)));
    expect(reads.map((response) => response.status)).toEqual(reads.map(() => 200));
    for (const read of reads) expect(read.body.total).toBe(1);
    await setOwnersCanReadChats(false);
  });
});
