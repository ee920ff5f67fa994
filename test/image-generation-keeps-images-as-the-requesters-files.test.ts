/**
 * Proves the banana_img connector over real HTTP on both dialects, with the official OpenAI client
 * in front of Merino and the official `openai` and `@google/genai` SDKs behind it talking to fakes
 * of OpenAI's images API and a Gemini image model: the answer is a markdown image whose URL serves
 * the image to the requester (and their organization's admins) and answers 404 to anyone else and
 * 401 without credentials; the image is the requester's file, deleted with the web chat it was made
 * in; a refusal is 422 `image_refused` and an image past IMAGE_MAX_BYTES 502 `image_too_large`,
 * never a 500; the content route answers 50 requests at once and refuses hostile ids.
 */
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IMAGE_PROMPTS, TINY_PNG } from './fakes/fake-image-answers.js';
import { startFakeGeminiServer, type FakeGeminiServer } from './fakes/fake-gemini-server.js';
import { startFakeOpenAiServer, type FakeOpenAiServer } from './fakes/fake-openai-server.js';
import { possiblyUnset } from './support/possibly-unset.js';
import { TEST_DIALECTS } from './support/test-databases.js';
import { createUser, loginAsAdmin, request, startTestServer, type TestServer } from './support/test-server.js';
import { peopleInTwoOrganizations } from './support/two-organizations.js';

const IMAGE_MAX_BYTES = 4_096;
const IMAGE_LINK = /^!\[Generated image\]\((\/api\/files\/(\d+)\/content)\)$/;

async function imageAssistant(server: TestServer, token: string, llm: string): Promise<number> {
  const created = await request(server, 'POST', '/api/assistants', {
    token,
    body: {
      name: `Image creator ${Math.random()}`,
      system_prompt: 'Draw what is asked.',
      metadata: { connector: 'banana_img', llm, capabilities: { vision: false, image_generation: true } },
    },
  });
  expect(created.status, created.text).toBe(201);
  return created.body.id as number;
}

async function fetchImage(
  server: TestServer,
  path: string,
  token?: string,
): Promise<{ status: number; bytes: Buffer; type: string | null }> {
  const response = await fetch(`${server.baseUrl}${path}`, { headers: token === undefined ? {} : { authorization: `Bearer ${token}` } });
  return { status: response.status, bytes: Buffer.from(await response.arrayBuffer()), type: response.headers.get('content-type') };
}

describe.each(TEST_DIALECTS)('image generation through OpenAI on %s', (dialect) => {
  let fake: FakeOpenAiServer;
  let server: TestServer;
  let adminToken: string;
  let creator: { id: number; token: string };
  let others: Record<'sameOrganizationCreator' | 'organizationAdmin' | 'otherOrganizationAdmin' | 'learner', string>;
  let assistantId: number;
  let client: OpenAI;

  beforeAll(async () => {
    fake = await startFakeOpenAiServer();
    server = await startTestServer(dialect, {
      environment: { OPENAI_BASE_URL: fake.baseUrl, OPENAI_API_KEY: 'sk-server', IMAGE_MAX_BYTES: String(IMAGE_MAX_BYTES) },
    });
    adminToken = await loginAsAdmin(server);
    const organizationId = (await request(server, 'GET', '/api/me', { token: adminToken })).body.organization_id as number;
    creator = await createUser(server, adminToken, { email: 'painter@merino.test', role: 'creator', organization_id: organizationId });
    const [sameOrganizationCreator, organizationAdmin, otherOrganizationAdmin, learner] = await peopleInTwoOrganizations(
      server,
      adminToken,
      [
        { email: 'creator@merino.test', role: 'creator', organization: 'A' },
        { email: 'org-admin@merino.test', role: 'admin', organization: 'A' },
        { email: 'b-admin@merino.test', role: 'admin', organization: 'B' },
        { email: 'learner@merino.test', role: 'learner', organization: 'A' },
      ],
    );
    others = {
      sameOrganizationCreator: sameOrganizationCreator!,
      organizationAdmin: organizationAdmin!,
      otherOrganizationAdmin: otherOrganizationAdmin!,
      learner: learner!,
    };
    assistantId = await imageAssistant(server, creator.token, 'gpt-image-1');
    client = new OpenAI({ apiKey: creator.token, baseURL: `${server.baseUrl}/v1`, maxRetries: 0 });
  });

  afterAll(async () => {
    await possiblyUnset(server)?.close();
    await possiblyUnset(fake)?.close();
  });

  it('answers /v1/chat/completions with a markdown image kept as the requester’s file, served to them only', async () => {
    const answer = await client.chat.completions.create({
      model: `lamb_assistant.${assistantId}`,
      messages: [{ role: 'user', content: 'A sheep on a hill' }],
    });
    const link = IMAGE_LINK.exec(answer.choices[0]!.message.content ?? '');
    expect(link, answer.choices[0]!.message.content ?? '').not.toBeNull();
    expect(answer.usage).toMatchObject({ prompt_tokens: expect.any(Number), completion_tokens: 272 });
    const sent = fake.requests.find((recorded) => recorded.path === '/v1/images/generations')!;
    expect(sent.body).toMatchObject({ model: 'gpt-image-1', prompt: 'A sheep on a hill', n: 1 });
    expect(sent.headers.authorization).toBe('Bearer sk-server');

    const path = link![1]!;
    const own = await fetchImage(server, path, creator.token);
    expect(own.status).toBe(200);
    expect(own.type).toBe('image/png');
    expect(own.bytes.equals(TINY_PNG)).toBe(true);
    const files = await request(server, 'GET', '/api/files', { token: creator.token });
    expect(files.body.items.map((file: { id: number }) => file.id)).toContain(Number(link![2]));

    for (const [who, token] of Object.entries(others)) {
      const status = (await fetchImage(server, path, token)).status;
      expect({ who, status }).toEqual({ who, status: who === 'organizationAdmin' ? 200 : 404 });
    }
    expect((await fetchImage(server, path)).status).toBe(401);
  });

  it('streams the same markdown image', async () => {
    const stream = await client.chat.completions.create({
      model: `lamb_assistant.${assistantId}`,
      stream: true,
      messages: [{ role: 'user', content: 'A goat' }],
    });
    let content = '';
    for await (const chunk of stream) content += chunk.choices[0]?.delta.content ?? '';
    expect(content).toMatch(IMAGE_LINK);
  });

  it('keeps a web chat’s image with the chat and deletes it with the chat', async () => {
    const chat = await request(server, 'POST', '/api/chats', { token: creator.token, body: { assistant_id: assistantId } });
    expect(chat.status, chat.text).toBe(201);
    const answered = await request(server, 'POST', `/api/chats/${chat.body.id}/messages`, {
      token: creator.token,
      body: { content: 'A llama in the snow' },
    });
    expect(answered.status, answered.text).toBe(200);
    const kept = await request(server, 'GET', `/api/chats/${chat.body.id}`, { token: creator.token });
    const link = IMAGE_LINK.exec(kept.body.messages.at(-1).content);
    expect(link, kept.text).not.toBeNull();
    const row = await server.store.db.selectFrom('files').selectAll().where('id', '=', Number(link![2])).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ owner_id: creator.id, chat_id: chat.body.id, content_type: 'image/png', deleted_at: null });
    expect((await fetchImage(server, link![1]!, creator.token)).status).toBe(200);

    expect((await request(server, 'DELETE', `/api/chats/${chat.body.id}`, { token: creator.token })).status).toBe(204);
    expect((await fetchImage(server, link![1]!, creator.token)).status).toBe(404);
    const deleted = await server.store.db
      .selectFrom('files')
      .select('deleted_at')
      .where('id', '=', Number(link![2]))
      .executeTakeFirstOrThrow();
    expect(deleted.deleted_at).not.toBeNull();
  });

  it('answers a content-policy refusal with 422 image_refused and keeps nothing', async () => {
    const before = (await request(server, 'GET', '/api/files', { token: creator.token })).body.total as number;
    const failure = await client.chat.completions
      .create({ model: `lamb_assistant.${assistantId}`, messages: [{ role: 'user', content: `A ${IMAGE_PROMPTS.refused} picture` }] })
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(OpenAI.APIError);
    expect((failure as InstanceType<typeof OpenAI.APIError>).status).toBe(422);
    expect((failure as InstanceType<typeof OpenAI.APIError>).code).toBe('image_refused');
    expect((await request(server, 'GET', '/api/files', { token: creator.token })).body.total).toBe(before);
  });

  it('answers an image past IMAGE_MAX_BYTES with 502 image_too_large and keeps nothing', async () => {
    const before = (await request(server, 'GET', '/api/files', { token: creator.token })).body.total as number;
    const failure = await client.chat.completions
      .create({ model: `lamb_assistant.${assistantId}`, messages: [{ role: 'user', content: IMAGE_PROMPTS.oversized }] })
      .catch((error: unknown) => error);
    expect((failure as InstanceType<typeof OpenAI.APIError>).status).toBe(502);
    expect((failure as InstanceType<typeof OpenAI.APIError>).code).toBe('image_too_large');
    expect((await request(server, 'GET', '/api/files', { token: creator.token })).body.total).toBe(before);
  });

  it('lets an orchestrator call the image assistant through image_gen and show its image', async () => {
    const orchestrator = await request(server, 'POST', '/api/assistants', {
      token: creator.token,
      body: {
        name: `Illustrated tutor ${Math.random()}`,
        system_prompt: 'Explain, and illustrate when it helps.',
        metadata: {
          connector: 'openai',
          llm: 'gpt-4o-mini',
          assistant_type: 'multi_tool',
          tools: [{ type: 'image_gen', config: { assistant_id: assistantId, name: 'draw' } }],
        },
      },
    });
    expect(orchestrator.status, orchestrator.text).toBe(201);
    let imageLink = '';
    fake.enqueue({ toolCalls: [{ id: 'call_draw', name: 'draw', arguments: '{"prompt":"A labelled plant cell"}' }] });
    fake.setResponder((recorded) => {
      const toolMessage = recorded.body.messages.find((message: { role: string }) => message.role === 'tool');
      imageLink = String(toolMessage?.content ?? '');
      return { text: `Here is a cell: ${imageLink}` };
    });
    const answer = await client.chat.completions.create({
      model: `lamb_assistant.${orchestrator.body.id}`,
      messages: [{ role: 'user', content: 'Show me a plant cell' }],
    });
    fake.reset();
    expect(imageLink).toMatch(/!\[Generated image\]\(\/api\/files\/\d+\/content\)/);
    const path = /\((\/api\/files\/\d+\/content)\)/.exec(answer.choices[0]!.message.content ?? '')![1]!;
    expect((await fetchImage(server, path, creator.token)).status).toBe(200);
    expect((await fetchImage(server, path, others.sameOrganizationCreator)).status).toBe(404);
  });

  it('serves 50 requests for an image at once, and answers hostile ids and non-image files with 404 or 400', async () => {
    const answer = await client.chat.completions.create({
      model: `lamb_assistant.${assistantId}`,
      messages: [{ role: 'user', content: 'A crowd of sheep' }],
    });
    const path = IMAGE_LINK.exec(answer.choices[0]!.message.content ?? '')![1]!;
    const fetched = await Promise.all(Array.from({ length: 50 }, () => fetchImage(server, path, creator.token)));
    expect(fetched.every((image) => image.status === 200 && image.bytes.equals(TINY_PNG))).toBe(true);
    for (const id of ['0', '-1', '99999999', 'abc', '1%27%20OR%201=1', '9'.repeat(40)]) {
      const status = (await fetchImage(server, `/api/files/${id}/content`, creator.token)).status;
      expect([400, 404]).toContain(status);
    }
  });
});

describe.each(TEST_DIALECTS)('image generation through a Gemini image model on %s', (dialect) => {
  let fake: FakeGeminiServer;
  let server: TestServer;
  let token: string;
  let model: string;
  let client: OpenAI;

  beforeAll(async () => {
    fake = await startFakeGeminiServer({ apiKey: 'AIza-image-key' });
    server = await startTestServer(dialect, {
      environment: {
        IMAGE_PROVIDER: 'gemini',
        GEMINI_BASE_URL: fake.baseUrl,
        GEMINI_API_KEY: 'AIza-image-key',
        IMAGE_MAX_BYTES: String(IMAGE_MAX_BYTES),
      },
    });
    token = await loginAsAdmin(server);
    model = `lamb_assistant.${await imageAssistant(server, token, 'gemini-2.5-flash-image')}`;
    client = new OpenAI({ apiKey: token, baseURL: `${server.baseUrl}/v1`, maxRetries: 0 });
  });

  afterAll(async () => {
    await possiblyUnset(server)?.close();
    await possiblyUnset(fake)?.close();
  });

  it('keeps the inline image as the requester’s file and links it', async () => {
    const answer = await client.chat.completions.create({ model, messages: [{ role: 'user', content: 'A merino sheep' }] });
    const link = IMAGE_LINK.exec(answer.choices[0]!.message.content ?? '');
    expect(link).not.toBeNull();
    const sent = fake.requests.find((recorded) => recorded.path.endsWith(':generateContent'))!;
    expect(sent.path).toBe('/v1beta/models/gemini-2.5-flash-image:generateContent');
    expect(sent.body.generationConfig.responseModalities).toEqual(['TEXT', 'IMAGE']);
    const image = await fetchImage(server, link![1]!, token);
    expect(image.status).toBe(200);
    expect(image.bytes.equals(TINY_PNG)).toBe(true);
  });

  it('answers a refusal with 422 image_refused and an oversized image with 502 image_too_large', async () => {
    for (const [content, status, code] of [
      [`${IMAGE_PROMPTS.refused} please`, 422, 'image_refused'],
      [IMAGE_PROMPTS.oversized, 502, 'image_too_large'],
    ] as const) {
      const failure = (await client.chat.completions
        .create({ model, messages: [{ role: 'user', content }] })
        .catch((error: unknown) => error)) as InstanceType<typeof OpenAI.APIError>;
      expect({ status: failure.status, code: failure.code }).toEqual({ status, code });
    }
  });
});
