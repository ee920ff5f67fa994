/**
 * A chat's messages are a tree (docs/chats.md, "Versions"): editing a question keeps the original
 * and its answers and starts a branch of its own, answered on the conversation before the question
 * only; regenerating adds an answer version; PUT …/active-version shows any version again, then
 * the newest one at each step below it; the export keeps every version. Only the chat's owner may
 * do any of it: everyone else gets 404 (401 without credentials), and nothing changes. Hostile
 * input is a clear 400 or 404; fifty edits at once are answered one at a time (the others refused with
 * chat_run_in_progress, keeping nothing), and fifty switches at once leave a consistent chat.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startChat, startChatWorld, type ChatWorld } from './support/chat-world.js';
import { possiblyUnset } from './support/possibly-unset.js';
import { TEST_DIALECTS } from './support/test-databases.js';
import { createUser, request } from './support/test-server.js';
import { peopleInTwoOrganizations } from './support/two-organizations.js';

interface ShownMessage {
  id: number;
  role: string;
  content: string;
  parent_id: number | null;
  version_ids: number[];
}

const CONCURRENT_REQUESTS = 50;

describe.each(TEST_DIALECTS)('question versions on %s', (dialect) => {
  let world: ChatWorld;
  let learner: string;
  let others: Record<string, string>;

  beforeAll(async () => {
    world = await startChatWorld(dialect);
    learner = (await createUser(world.server, world.adminToken, { email: 'versions-learner@merino.test', role: 'learner' })).token;
    const [sameOrganizationCreator, otherOrganizationAdmin, otherLearner] = await peopleInTwoOrganizations(world.server, world.adminToken, [
      { email: 'versions-creator@merino.test', role: 'creator', organization: 'A' },
      { email: 'versions-b-admin@merino.test', role: 'admin', organization: 'B' },
      { email: 'versions-other-learner@merino.test', role: 'learner', organization: 'A' },
    ]);
    others = {
      assistantOwner: world.adminToken,
      sameOrganizationCreator: sameOrganizationCreator!,
      otherOrganizationAdmin: otherOrganizationAdmin!,
      otherLearner: otherLearner!,
    };
  });

  afterAll(async () => {
    await possiblyUnset(world)?.close();
  });

  beforeEach(() => {
    world.provider.reset();
  });

  const shown = async (chatId: number): Promise<ShownMessage[]> =>
    (await request(world.server, 'GET', `/api/chats/${chatId}`, { token: learner })).body.messages as ShownMessage[];

  async function chatWithTwoTurns(): Promise<{ chatId: number; messages: ShownMessage[] }> {
    const chatId = await startChat(world, learner);
    world.provider.enqueue({ text: 'Answer one.' }, { text: 'Answer two.' });
    await request(world.server, 'POST', `/api/chats/${chatId}/messages`, { token: learner, body: { content: 'Question one' } });
    await request(world.server, 'POST', `/api/chats/${chatId}/messages`, { token: learner, body: { content: 'Question two' } });
    return { chatId, messages: await shown(chatId) };
  }

  it('starts a branch of its own for an edited question and keeps the earlier branch reachable', async () => {
    const { chatId, messages } = await chatWithTwoTurns();
    const [firstQuestion] = messages;
    world.provider.enqueue({ text: 'Answer to the edit.' });
    const edited = await request(world.server, 'POST', `/api/chats/${chatId}/messages/${firstQuestion!.id}/versions`, {
      token: learner,
      body: { content: 'Question one, better put' },
    });
    expect(edited.status).toBe(200);
    expect(edited.body.choices[0].message.content).toBe('Answer to the edit.');
    // The model saw the edited question alone: nothing of the branch it replaces.
    const upstream = world.provider.requests.at(-1)!.body.messages as { role: string; content: string }[];
    expect(upstream.map((message) => message.role)).toEqual(['system', 'user']);
    expect(JSON.stringify(upstream)).not.toContain('Answer one.');

    const branch = await shown(chatId);
    expect(branch.map((message) => message.content)).toEqual(['Question one, better put', 'Answer to the edit.']);
    expect(branch[0]!.version_ids).toEqual([firstQuestion!.id, branch[0]!.id]);
    expect(branch[1]!.version_ids).toEqual([branch[1]!.id]);

    const back = await request(world.server, 'PUT', `/api/chats/${chatId}/active-version`, {
      token: learner,
      body: { message_id: firstQuestion!.id },
    });
    expect(back.status).toBe(200);
    expect((back.body.messages as ShownMessage[]).map((message) => message.content)).toEqual([
      'Question one',
      'Answer one.',
      'Question two',
      'Answer two.',
    ]);
    expect(await shown(chatId)).toEqual(back.body.messages);
  });

  it('keeps regenerated answers as versions that can be shown again, with what followed them', async () => {
    const { chatId, messages } = await chatWithTwoTurns();
    const firstAnswer = messages[1]!;
    world.provider.enqueue({ text: 'Answer two, again.' });
    // Regenerating answers the last question of the branch shown; to regenerate the first, show a branch ending there.
    await request(world.server, 'POST', `/api/chats/${chatId}/regenerate`, { token: learner, body: {} });
    const afterRegenerate = await shown(chatId);
    expect(afterRegenerate.at(-1)!.version_ids).toHaveLength(2);
    const [oldAnswer] = afterRegenerate.at(-1)!.version_ids;
    const switched = await request(world.server, 'PUT', `/api/chats/${chatId}/active-version`, {
      token: learner,
      body: { message_id: oldAnswer },
    });
    expect((switched.body.messages as ShownMessage[]).map((message) => message.content).at(-1)).toBe('Answer two.');
    // Showing the first answer follows the newest version at each step below it.
    const fromTheTop = await request(world.server, 'PUT', `/api/chats/${chatId}/active-version`, {
      token: learner,
      body: { message_id: firstAnswer.id },
    });
    expect((fromTheTop.body.messages as ShownMessage[]).map((message) => message.content).at(-1)).toBe('Answer two, again.');
  });

  it('exports the branch shown and every other version, in JSON and markdown', async () => {
    const { chatId, messages } = await chatWithTwoTurns();
    world.provider.enqueue({ text: 'Answer two, again.' });
    await request(world.server, 'POST', `/api/chats/${chatId}/regenerate`, { token: learner, body: {} });
    const exported = await request(world.server, 'GET', '/api/chats/export?format=json', { token: learner });
    const chat = (exported.body.chats as { id: number; messages: ShownMessage[]; other_versions: ShownMessage[] }[]).find(
      (candidate) => candidate.id === chatId,
    )!;
    expect(chat.messages.map((message) => message.content)).toEqual(['Question one', 'Answer one.', 'Question two', 'Answer two, again.']);
    expect(chat.other_versions.map((message) => message.id)).toEqual([messages[3]!.id]);
    expect(chat.other_versions[0]).toMatchObject({ content: 'Answer two.', parent_id: messages[2]!.id });
    const markdown = await request(world.server, 'GET', '/api/chats/export?format=markdown', { token: learner });
    expect(markdown.text).toContain('version 2 of 2');
    expect(markdown.text).toContain('Answer two, again.');
  });

  it('answers 404 to everyone but the chat owner and 401 without credentials, and changes nothing', async () => {
    const { chatId, messages } = await chatWithTwoTurns();
    const routes: [string, string, unknown][] = [
      ['POST', `/api/chats/${chatId}/messages/${messages[0]!.id}/versions`, { content: 'taken over' }],
      ['PUT', `/api/chats/${chatId}/active-version`, { message_id: messages[0]!.id }],
    ];
    for (const [who, token] of Object.entries(others)) {
      for (const [method, path, body] of routes) {
        const response = await request(world.server, method, path, { token, body });
        expect({ who, path, status: response.status }).toEqual({ who, path, status: 404 });
        expect(response.text).not.toContain('Question one');
      }
    }
    for (const [method, path, body] of routes) expect((await request(world.server, method, path, { body })).status).toBe(401);
    expect(world.provider.requests).toHaveLength(2);
    expect(await shown(chatId)).toEqual(messages);
  });

  it('refuses hostile input with a clear 4xx and keeps nothing', async () => {
    const { chatId, messages } = await chatWithTwoTurns();
    const answerId = messages[1]!.id;
    const cases: [string, string, unknown, number, string][] = [
      ['POST', `/api/chats/${chatId}/messages/${answerId}/versions`, { content: 'an answer is no question' }, 404, 'messageId'],
      ['POST', `/api/chats/${chatId}/messages/999999/versions`, { content: 'missing' }, 404, 'messageId'],
      ['POST', `/api/chats/${chatId}/messages/${messages[0]!.id}/versions`, { content: '   ' }, 400, 'content'],
      ['POST', `/api/chats/${chatId}/messages/${messages[0]!.id}/versions`, { content: 'x', role: 'system' }, 400, 'role'],
      ['POST', `/api/chats/${chatId}/messages/-1/versions`, { content: 'x' }, 400, 'messageId'],
      ['PUT', `/api/chats/${chatId}/active-version`, { message_id: 'first' }, 400, 'message_id'],
      ['PUT', `/api/chats/${chatId}/active-version`, {}, 400, 'message_id'],
      ['PUT', `/api/chats/${chatId}/active-version`, { message_id: 999_999 }, 404, 'message_id'],
    ];
    for (const [method, path, body, status, named] of cases) {
      const response = await request(world.server, method, path, { token: learner, body });
      expect({ path, body, status: response.status }).toEqual({ path, body, status });
      expect(JSON.stringify(response.body.error)).toContain(named);
    }
    // Another chat's message is not a version of this one.
    const otherChat = await chatWithTwoTurns();
    const foreign = await request(world.server, 'PUT', `/api/chats/${chatId}/active-version`, {
      token: learner,
      body: { message_id: otherChat.messages[0]!.id },
    });
    expect(foreign.status).toBe(404);
    expect(await shown(chatId)).toEqual(messages);
  });

  it(`takes ${CONCURRENT_REQUESTS} edits and ${CONCURRENT_REQUESTS} switches at once and ends with one consistent branch`, async () => {
    const { chatId, messages } = await chatWithTwoTurns();
    const question = messages[2]!;
    const edits = await Promise.all(
      Array.from({ length: CONCURRENT_REQUESTS }, (_, index) =>
        request(world.server, 'POST', `/api/chats/${chatId}/messages/${question.id}/versions`, {
          token: learner,
          body: { content: `Edit ${index}` },
        }),
      ),
    );
    // A chat answers one question at a time (its run): an edit sent while another is answered is refused
    // with chat_run_in_progress and keeps nothing, so every version kept is an edit that got its answer.
    const answered = edits.filter((response) => response.status === 200);
    const refused = edits.filter((response) => response.status !== 200);
    expect(answered.length).toBeGreaterThanOrEqual(1);
    for (const response of refused) {
      expect(response.status).toBe(409);
      expect(response.body.error.code).toBe('chat_run_in_progress');
    }
    const branch = await shown(chatId);
    expect(branch).toHaveLength(4);
    expect(branch[2]!.version_ids).toHaveLength(answered.length + 1);
    expect(branch[3]!.parent_id).toBe(branch[2]!.id);
    const versions = branch[2]!.version_ids;
    const switches = await Promise.all(
      Array.from({ length: CONCURRENT_REQUESTS }, (_, index) =>
        request(world.server, 'PUT', `/api/chats/${chatId}/active-version`, {
          token: learner,
          body: { message_id: versions[index % versions.length] },
        }),
      ),
    );
    expect(switches.map((response) => response.status)).toEqual(switches.map(() => 200));
    const final = await shown(chatId);
    expect(final).toHaveLength(4);
    expect(versions).toContain(final[2]!.id);
    expect(final[3]!.parent_id).toBe(final[2]!.id);
  });
});
