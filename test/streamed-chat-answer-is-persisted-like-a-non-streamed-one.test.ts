/**
 * A kept chat's answer is saved the same way whether it was streamed or not: content, reasoning,
 * sources, tool steps (with display names and durations), usage and finish reason. The stream
 * itself is exactly /v1/chat/completions's wire (status with display_name, content, sources,
 * usage, [DONE]) and the non-streamed body is its chat.completion. The first answer names the
 * chat from the question; a later one does not rename it; the whole conversation reaches the model.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serverSentEvents, startChat, startChatWorld, NOTES_FILE_NAME, type ChatWorld } from './support/chat-world.js';
import { TEST_DIALECTS } from './support/test-databases.js';
import { request } from './support/test-server.js';
import { possiblyUnset } from './support/possibly-unset.js';

describe.each(TEST_DIALECTS)('kept chat answers on %s', (dialect) => {
  let world: ChatWorld;

  beforeAll(async () => {
    world = await startChatWorld(dialect);
  });

  afterAll(async () => {
    await possiblyUnset(world)?.close();
  });

  const reply = {
    chunks: ['Cells ', 'divide ', 'by mitosis.'],
    reasoning: ['The notes ', 'say so.'],
    usage: { prompt_tokens: 40, completion_tokens: 6 },
  };

  async function storedAnswer(chatId: number) {
    const chat = await request(world.server, 'GET', `/api/chats/${chatId}`, { token: world.adminToken });
    expect(chat.status).toBe(200);
    return chat.body;
  }

  function comparable(message: Record<string, any>) {
    // Ids differ between the two chats: what is compared is whether a message follows another, and how many versions it has.
    const { id: _id, created_at: _createdAt, parent_id: parentId, version_ids: versionIds, steps, ...rest } = message;
    return {
      ...rest,
      follows_a_message: parentId !== null,
      versions: (versionIds as number[]).length,
      steps: (steps as Record<string, unknown>[]).map(({ duration_ms: duration, ...step }) => ({
        ...step,
        timed: typeof duration === 'number',
      })),
    };
  }

  it('saves a non-streamed answer and a streamed one identically, and streams the /v1 wire format', async () => {
    const plainChat = await startChat(world, world.adminToken);
    world.provider.enqueue(reply);
    const plain = await request(world.server, 'POST', `/api/chats/${plainChat}/messages`, {
      token: world.adminToken,
      body: { content: 'How do cells divide when they grow, and why does it matter?' },
    });
    expect(plain.status).toBe(200);
    expect(plain.body).toMatchObject({
      object: 'chat.completion',
      model: `lamb_assistant.${world.assistantId}`,
      choices: [
        {
          message: { role: 'assistant', content: 'Cells divide by mitosis.', reasoning_content: 'The notes say so.' },
          finish_reason: 'stop',
        },
      ],
      usage: { prompt_tokens: 40, completion_tokens: 6, total_tokens: 46 },
    });
    expect(plain.body.sources).toEqual([expect.objectContaining({ title: NOTES_FILE_NAME, tool: 'single_file_rag' })]);

    const streamedChat = await startChat(world, world.adminToken);
    world.provider.enqueue(reply);
    const streamed = await request(world.server, 'POST', `/api/chats/${streamedChat}/messages`, {
      token: world.adminToken,
      body: { content: 'How do cells divide when they grow, and why does it matter?', stream: true },
    });
    expect(streamed.status).toBe(200);
    expect(streamed.headers.get('content-type')).toContain('text/event-stream');
    const events = serverSentEvents(streamed.text) as Record<string, any>[];
    expect(events.at(-1)).toBe('[DONE]');
    const statuses = events.filter((event) => event.status !== undefined).map((event) => event.status);
    expect(statuses.map((status) => status.state)).toEqual(['running', 'done']);
    expect(statuses[0]).toMatchObject({ tool: 'single_file_rag', display_name: expect.any(String) });
    expect(statuses[0].display_name).not.toBe('');
    const text = events.map((event) => event.choices?.[0]?.delta?.content ?? '').join('');
    expect(text).toBe('Cells divide by mitosis.');
    expect(events.some((event) => event.choices?.[0]?.delta?.reasoning_content !== undefined)).toBe(true);
    expect(events.find((event) => event.sources !== undefined)?.sources).toEqual(plain.body.sources);
    expect(events.find((event) => event.usage !== undefined)?.usage).toEqual(plain.body.usage);
    for (const event of events.slice(0, -1)) expect(event.model).toBe(`lamb_assistant.${world.assistantId}`);

    const plainStored = await storedAnswer(plainChat);
    const streamedStored = await storedAnswer(streamedChat);
    expect(plainStored.messages).toHaveLength(2);
    expect(streamedStored.messages.map(comparable)).toEqual(plainStored.messages.map(comparable));
    const answer = plainStored.messages[1];
    expect(answer).toMatchObject({
      role: 'assistant',
      content: 'Cells divide by mitosis.',
      reasoning: 'The notes say so.',
      usage: { prompt_tokens: 40, completion_tokens: 6, total_tokens: 46 },
      finish_reason: 'stop',
    });
    expect(answer.steps).toEqual([
      {
        id: statuses[0].id,
        tool: 'single_file_rag',
        display_name: statuses[0].display_name,
        state: 'done',
        duration_ms: expect.any(Number),
      },
    ]);
    expect(plainStored.messages[0]).toMatchObject({
      role: 'user',
      reasoning: null,
      sources: [],
      steps: [],
      usage: null,
      finish_reason: null,
    });
    expect(plainStored.title).toBe('How do cells divide when they grow, and…');
  });

  it('sends the whole conversation to the model and keeps the first title', async () => {
    const chatId = await startChat(world, world.adminToken);
    world.provider.enqueue({ text: 'First answer.' }, { text: 'Second answer.' });
    await request(world.server, 'POST', `/api/chats/${chatId}/messages`, { token: world.adminToken, body: { content: 'First question' } });
    await request(world.server, 'POST', `/api/chats/${chatId}/messages`, { token: world.adminToken, body: { content: 'Second question' } });
    const upstream = world.provider.requests.at(-1)!.body.messages as { role: string; content: string }[];
    expect(upstream.map((message) => message.role)).toEqual(['system', 'user', 'assistant', 'user']);
    expect(upstream[1]?.content).toBe('First question');
    expect(upstream[2]?.content).toBe('First answer.');
    expect(upstream[3]?.content).toContain('Second question');
    const chat = await storedAnswer(chatId);
    expect(chat.title).toBe('First question');
    expect(chat.messages.map((message: { content: string }) => message.content)).toEqual([
      'First question',
      'First answer.',
      'Second question',
      'Second answer.',
    ]);
  });

  it('keeps a title the owner gave, and lets the owner rename it', async () => {
    const chatId = await startChat(world, world.adminToken, 'Mitosis revision');
    world.provider.enqueue({ text: 'Yes.' });
    await request(world.server, 'POST', `/api/chats/${chatId}/messages`, { token: world.adminToken, body: { content: 'Is this kept?' } });
    expect((await storedAnswer(chatId)).title).toBe('Mitosis revision');
    const renamed = await request(world.server, 'PATCH', `/api/chats/${chatId}`, {
      token: world.adminToken,
      body: { title: 'Cell cycle' },
    });
    expect(renamed.status).toBe(200);
    expect(renamed.body.title).toBe('Cell cycle');
    expect((await storedAnswer(chatId)).title).toBe('Cell cycle');
  });
});
