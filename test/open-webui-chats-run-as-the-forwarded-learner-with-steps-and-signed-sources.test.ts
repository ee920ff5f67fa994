/**
 * The Open WebUI wire test, over real HTTP on both stores: the exact headers and body Open WebUI
 * 0.6+ sends for a streamed chat through an OpenAI connection with ENABLE_FORWARD_USER_INFO_HEADERS
 * (its `X-OpenWebUI-*` headers, the name percent-encoded, `stream_options.include_usage`, the
 * `metadata` it pops before sending) run as the Merino learner the email names, show the steps as
 * content, end with a "Sources" block whose signed links open the cited passages, and stream
 * cleanly to `[DONE]`. The links open for the learner and readers of the knowledge base only, and
 * are refused altered, expired or to another learner; unknown emails and other organizations'
 * people are refused unless the organization lets front ends create learners.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serverSentEvents, startChatWorld, type ChatWorld } from './support/chat-world.js';
import { possiblyUnset } from './support/possibly-unset.js';
import { addSourcedAssistant, QUESTION, type SourcedAssistant } from './support/sourced-assistant.js';
import { TEST_DIALECTS } from './support/test-databases.js';
import { createUser, request, type CreatedUser } from './support/test-server.js';
import { insertOrganization } from '../src/store/organizations-repository.js';

interface OpenWebUiUser {
  email: string;
  name: string;
  id: string;
  role: 'user' | 'admin';
}

interface StreamedAnswer {
  status: number;
  text: string;
  events: unknown[];
  content: string;
  sources: Array<{ title: string; chunk_index?: number; document_id?: string }>;
}

/** The links of a "Sources" block, in order. */
function linksOf(content: string): string[] {
  const block = content.slice(content.indexOf('**Sources**'));
  return [...block.matchAll(/\]\((https?:\/\/[^)\s]+)\)/g)].map((match) => match[1]!);
}

describe.each(TEST_DIALECTS)('Open WebUI as a front end on %s', (dialect) => {
  let world: ChatWorld;
  let organizationId: number;
  let people: Record<'owner' | 'colleague' | 'learner' | 'otherLearner' | 'admin' | 'service' | 'stranger', CreatedUser>;
  let sourced: SourcedAssistant;
  let frontEndKey: string;
  let keyWithoutLinks: string;
  let model: string;

  const learner = (): OpenWebUiUser => ({ email: people.learner.email, name: 'Léa Rüner', id: '1b1a6f1e-learner', role: 'user' });

  /** Exactly what Open WebUI 0.6's routers/openai.py sends: its JSON headers, the bearer key and the forwarded-user headers. */
  function openWebUiHeaders(key: string, user: OpenWebUiUser, chatId = '7c1e2a9b-5f0e-4d8a-9c3b-2f1d0e9a8b7c'): Record<string, string> {
    return {
      'Content-Type': 'application/json',
      'X-OpenWebUI-User-Name': encodeURIComponent(user.name).replaceAll('%20', ' '),
      'X-OpenWebUI-User-Id': user.id,
      'X-OpenWebUI-User-Email': user.email,
      'X-OpenWebUI-User-Role': user.role,
      'X-OpenWebUI-Chat-Id': chatId,
      Authorization: `Bearer ${key}`,
    };
  }

  async function openWebUiChat(key: string, user: OpenWebUiUser, extra: Record<string, unknown> = {}): Promise<StreamedAnswer> {
    const response = await fetch(`${world.server.baseUrl}/v1/chat/completions`, {
      method: 'POST',
      headers: openWebUiHeaders(key, user),
      body: JSON.stringify({
        stream: true,
        model,
        messages: [{ role: 'user', content: QUESTION }],
        stream_options: { include_usage: true },
        ...extra,
      }),
    });
    const text = await response.text();
    if (response.status !== 200) return { status: response.status, text, events: [], content: '', sources: [] };
    const events = serverSentEvents(text);
    const chunks = events.filter((event): event is Record<string, any> => typeof event === 'object' && event !== null);
    const content = chunks.map((chunk) => (chunk.choices?.[0]?.delta?.content as string | undefined) ?? '').join('');
    const sources = chunks.flatMap((chunk) => (chunk.sources as StreamedAnswer['sources'] | undefined) ?? []);
    return { status: response.status, text, events, content, sources };
  }

  beforeAll(async () => {
    world = await startChatWorld(dialect, { TRUST_FORWARDED_USER_HEADERS: 'true' });
    organizationId = (await request(world.server, 'GET', '/api/me', { token: world.adminToken })).body.organization_id as number;
    const otherOrganizationId = await insertOrganization(world.server.store.db, `elsewhere-${dialect}`, 'Elsewhere');
    const person = (name: string, role: 'admin' | 'creator' | 'learner', organization = organizationId) =>
      createUser(world.server, world.adminToken, { email: `owui-${name}-${dialect}@school.test`, role, organization_id: organization });
    people = {
      owner: await person('owner', 'creator'),
      colleague: await person('colleague', 'creator'),
      learner: await person('learner', 'learner'),
      otherLearner: await person('other-learner', 'learner'),
      admin: await person('admin', 'admin'),
      service: await person('service', 'learner'),
      stranger: await person('stranger', 'learner', otherOrganizationId),
    };
    sourced = await addSourcedAssistant(world.server, people.owner.token);
    model = `lamb_assistant.${sourced.assistantId}`;
    // Open WebUI shows only content, so the assistant writes its steps there (DESIGN §4).
    const assistant = await request(world.server, 'GET', `/api/assistants/${sourced.assistantId}`, { token: people.owner.token });
    const patched = await request(world.server, 'PATCH', `/api/assistants/${sourced.assistantId}`, {
      token: people.owner.token,
      body: { metadata: { ...assistant.body.metadata, status_as_content: true } },
    });
    expect(patched.status, patched.text).toBe(200);
    const key = await request(world.server, 'POST', '/api/api-keys', {
      token: world.adminToken,
      body: { name: 'open-webui', trusted_front_end: true, source_links: true, user_id: people.service.id },
    });
    expect(key.status, key.text).toBe(201);
    expect(key.body).toMatchObject({ trusted_front_end: true, source_links: true });
    frontEndKey = key.body.key as string;
    const plain = await request(world.server, 'POST', '/api/api-keys', {
      token: world.adminToken,
      body: { name: 'open-webui without links', trusted_front_end: true, user_id: people.service.id },
    });
    keyWithoutLinks = plain.body.key as string;
  });

  afterAll(async () => {
    await possiblyUnset(world)?.close();
  });

  it("runs Open WebUI's streamed chat as the learner, with steps as content, a Sources block and a clean stream", async () => {
    world.provider.enqueue({ text: 'Light comes first [1], then the Calvin cycle [2].' });
    const answer = await openWebUiChat(frontEndKey, learner());
    expect(answer.status, answer.text).toBe(200);
    expect(answer.events.at(-1)).toBe('[DONE]');
    expect(answer.events.filter((event) => typeof event === 'object' && event !== null && 'error' in event)).toEqual([]);
    // The steps come first, as italic lines; then the answer; then the block.
    expect(answer.content).toMatch(/^_[^_\n]+…_\n\n/);
    const answerAt = answer.content.indexOf('Light comes first [1], then the Calvin cycle [2].');
    expect(answerAt).toBeGreaterThan(0);
    const blockAt = answer.content.indexOf('\n\n**Sources**\n\n');
    expect(blockAt).toBeGreaterThan(answerAt);
    // Entry n is source n, as the [n] citations number them, each a link to its passage.
    expect(answer.sources.length).toBeGreaterThanOrEqual(2);
    const entries = answer.content
      .slice(blockAt)
      .split('\n')
      .filter((line) => /^\d+\. /.test(line));
    expect(entries).toHaveLength(answer.sources.length);
    entries.forEach((entry, index) => expect(entry.startsWith(`${index + 1}. [${answer.sources[index]!.title}`)).toBe(true));
    const links = linksOf(answer.content);
    expect(links).toHaveLength(answer.sources.length);
    for (const [index, link] of links.entries()) {
      // The link opens the web app's page, which reads the passage from the API with the same token.
      expect(link).toMatch(new RegExp(`^${world.server.baseUrl}/sources/[0-9.]+[0-9a-f]{64}$`));
      const opened = await fetch(`${world.server.baseUrl}/api/source-links/${link.slice(link.lastIndexOf('/') + 1)}`);
      expect(opened.status).toBe(200);
      expect(opened.headers.get('cache-control')).toBe('no-store');
      const passage = (await opened.json()) as { chunk_index: number; document_id: number; passages: unknown[] };
      expect(passage.chunk_index).toBe(answer.sources[index]!.chunk_index);
      expect(String(passage.document_id)).toBe(answer.sources[index]!.document_id);
    }
    // The run was the learner's: their usage row, not the service account's.
    const usage = await world.server.store.db
      .selectFrom('usage_logs')
      .select(['user_id'])
      .where('assistant_id', '=', sourced.assistantId)
      .execute();
    expect(usage.map((row) => row.user_id)).toContain(people.learner.id);
    expect(usage.map((row) => row.user_id)).not.toContain(people.service.id);
    // Neither the email nor the name reached a log line.
    const logs = world.server.logLines.join('\n');
    expect(logs).not.toContain(people.learner.email);
    expect(logs).not.toContain('Rüner');
  });

  it('ignores the metadata fields an Open WebUI body may still carry, and writes no block for a key that did not ask', async () => {
    world.provider.enqueue({ text: 'Light first [1].' });
    const answer = await openWebUiChat(keyWithoutLinks, learner(), {
      metadata: { chat_id: 'c1', message_id: 'm1', session_id: 's1', features: {}, variables: {} },
      temperature: 0.2,
    });
    expect(answer.status, answer.text).toBe(200);
    expect(answer.content).toContain('Light first [1].');
    expect(answer.content).not.toContain('**Sources**');
    expect(answer.events.at(-1)).toBe('[DONE]');
  });

  describe('the signed source link', () => {
    let link: string;
    let token: string;

    beforeAll(async () => {
      world.provider.enqueue({ text: 'Light first [1].' });
      const answer = await openWebUiChat(frontEndKey, learner());
      link = linksOf(answer.content)[0]!;
      token = link.slice(link.lastIndexOf('/') + 1);
    });

    const open = (path: string, sessionToken?: string) => request(world.server, 'GET', path, { token: sessionToken });

    it.each([
      ['the learner it names, not signed in', undefined, 200],
      ['the learner it names, signed in', 'learner', 200],
      ["the knowledge base's owner", 'owner', 200],
      ['an admin of the organization', 'admin', 200],
      ['a creator of the organization who cannot read the knowledge base', 'colleague', 404],
      ['another learner of the organization', 'otherLearner', 404],
      ['a user of another organization', 'stranger', 404],
    ] as const)('opens for %s (%i)', async (_name, who, status) => {
      const response = await open(`/api/source-links/${token}`, who === undefined ? undefined : people[who].token);
      expect(response.status, response.text).toBe(status);
      if (status === 200)
        expect(Object.keys(response.body).sort()).toEqual([
          'chunk_count',
          'chunk_index',
          'document_id',
          'file_name',
          'knowledge_base_id',
          'knowledge_base_name',
          'passages',
        ]);
      else expect(response.body.error.code).toBe('not_found');
    });

    it('is refused when altered: another passage, another person, or a changed signature (404)', async () => {
      const parts = token.split('.');
      const altered = [
        [parts[0], parts[1], parts[2], parts[3], String(Number(parts[4]) + 1), parts[5], parts[6]],
        [String(people.otherLearner.id), ...parts.slice(1)],
        [...parts.slice(0, 5), String(Number(parts[5]) + 86_400), parts[6]],
        [...parts.slice(0, 6), `${parts[6]!.slice(0, -1)}${parts[6]!.endsWith('0') ? '1' : '0'}`],
      ];
      for (const fields of altered) {
        const response = await open(`/api/source-links/${fields.join('.')}`);
        expect(response.status, response.text).toBe(404);
        expect(response.body.error.code).toBe('not_found');
      }
    });

    it('is refused once expired (410 source_link_expired), even for the learner it names', async () => {
      const [userId, assistantId, knowledgeBaseId, documentId, chunkIndex] = token.split('.').map(Number);
      const old = world.server.services.sourceLinks.sign(
        { userId: userId!, assistantId: assistantId!, knowledgeBaseId: knowledgeBaseId!, documentId: documentId!, chunkIndex: chunkIndex! },
        Date.now() - 169 * 3_600_000,
      );
      const response = await open(`/api/source-links/${old}`, people.learner.token);
      expect(response.status, response.text).toBe(410);
      expect(response.body.error.code).toBe('source_link_expired');
    });

    it.each([
      ['a made-up token', 'not-a-token', 404],
      ['path tricks', '..%2F..%2Fapi%2Fme', 404],
      ['a thousand characters', 'a'.repeat(1_000), 400],
      ['numbers past any id', `99999999999.1.1.1.1.9999999999.${'0'.repeat(64)}`, 404],
      ['unicode and quotes', encodeURIComponent('"<script>ü'), 404],
    ])('answers hostile input (%s) with a clear 4xx and no stack', async (_name, value, status) => {
      const response = await open(`/api/source-links/${value}`);
      expect(response.status).toBe(status);
      expect(response.text).not.toMatch(/at .*\.ts:\d+/);
    });

    it('gives the same passage to 50 opens at once', async () => {
      const responses = await Promise.all(Array.from({ length: 50 }, () => open(`/api/source-links/${token}`)));
      expect(responses.map((response) => response.status)).toEqual(Array.from({ length: 50 }, () => 200));
      expect(new Set(responses.map((response) => response.text)).size).toBe(1);
    });
  });

  describe('whom the forwarded headers may name', () => {
    const setting = (value: boolean) =>
      request(world.server, 'PATCH', `/api/organizations/${organizationId}/settings`, {
        token: people.admin.token,
        body: { front_end_creates_learners: value },
      });

    it('refuses an unknown email with 403 forwarded_user_unknown while the organization does not allow creating learners', async () => {
      expect(
        (await request(world.server, 'GET', `/api/organizations/${organizationId}/settings`, { token: people.admin.token })).body
          .front_end_creates_learners,
      ).toBe(false);
      const answer = await openWebUiChat(frontEndKey, { email: `new-${dialect}@school.test`, name: 'New Person', id: 'x', role: 'user' });
      expect(answer.status, answer.text).toBe(403);
      expect(JSON.parse(answer.text).error).toMatchObject({ code: 'forwarded_user_unknown', param: 'x-openwebui-user-email' });
      expect(answer.text).not.toContain(`new-${dialect}@school.test`);
    });

    it('creates one learner of the organization for 50 first requests at once once it allows it', async () => {
      expect((await setting(true)).status).toBe(200);
      try {
        const newcomer: OpenWebUiUser = { email: `Newcomer-${dialect}@School.test`, name: 'Nuño Newcomer', id: 'n', role: 'admin' };
        world.provider.enqueue(...Array.from({ length: 50 }, () => ({ text: 'Hello.' })));
        const answers = await Promise.all(Array.from({ length: 50 }, () => openWebUiChat(frontEndKey, newcomer)));
        expect(answers.map((answer) => answer.status)).toEqual(Array.from({ length: 50 }, () => 200));
        expect(answers.every((answer) => answer.events.at(-1) === '[DONE]')).toBe(true);
        const created = await world.server.store.db
          .selectFrom('users')
          .innerJoin('organization_roles', 'organization_roles.user_id', 'users.id')
          .select(['users.id', 'users.name', 'users.organization_id', 'organization_roles.role'])
          .where('users.email', '=', `newcomer-${dialect}@school.test`)
          .execute();
        // Open WebUI's role "admin" is not believed: Merino makes a learner.
        expect(created).toEqual([{ id: created[0]!.id, name: 'Nuño Newcomer', organization_id: organizationId, role: 'learner' }]);
      } finally {
        await setting(false);
      }
    });

    it.each([
      ['a user of another organization', 'stranger'],
      ['the system administrator', 'system'],
    ] as const)('refuses %s with 403 forwarded_user_refused', async (_name, who) => {
      const email =
        who === 'system' ? (await request(world.server, 'GET', '/api/me', { token: world.adminToken })).body.email : people.stranger.email;
      const answer = await openWebUiChat(frontEndKey, { email, name: 'X', id: 'x', role: 'user' });
      expect(answer.status, answer.text).toBe(403);
      expect(JSON.parse(answer.text).error.code).toBe('forwarded_user_refused');
    });

    it('runs as the learner with their own permissions: an unpublished assistant of the owner is not found', async () => {
      await request(world.server, 'PUT', `/api/assistants/${sourced.assistantId}/publish`, {
        token: people.owner.token,
        body: { published: false },
      });
      try {
        const answer = await openWebUiChat(frontEndKey, learner());
        expect(answer.status, answer.text).toBe(404);
        expect(JSON.parse(answer.text).error.code).toBe('model_not_found');
      } finally {
        await request(world.server, 'PUT', `/api/assistants/${sourced.assistantId}/publish`, {
          token: people.owner.token,
          body: { published: true },
        });
      }
    });

    it.each([
      ['an email that is not one', { 'X-OpenWebUI-User-Email': 'not an email' }, 'x-openwebui-user-email'],
      ['an overlong chat id', { 'X-OpenWebUI-Chat-Id': 'c'.repeat(400) }, 'x-openwebui-chat-id'],
      ['an overlong name', { 'X-OpenWebUI-User-Name': 'n'.repeat(400) }, 'x-openwebui-user-name'],
    ])('refuses %s with 400 naming the header', async (_name, headers, param) => {
      const response = await fetch(`${world.server.baseUrl}/v1/chat/completions`, {
        method: 'POST',
        headers: { ...openWebUiHeaders(frontEndKey, learner()), ...headers },
        body: JSON.stringify({ model, messages: [{ role: 'user', content: 'Hi' }], stream: true }),
      });
      expect(response.status).toBe(400);
      expect(((await response.json()) as { error: { param: string } }).error.param).toBe(param);
    });

    it('takes a name that is not valid percent-encoding as sent', async () => {
      world.provider.enqueue({ text: 'Hi.' });
      const answer = await openWebUiChat(frontEndKey, { ...learner(), name: '100%' });
      expect(answer.status, answer.text).toBe(200);
    });
  });

  it('refuses source_links on a key that is not a trusted front end (400)', async () => {
    const response = await request(world.server, 'POST', '/api/api-keys', {
      token: world.adminToken,
      body: { name: 'links', source_links: true },
    });
    expect(response.status, response.text).toBe(400);
    expect(response.body.error.param).toBe('source_links');
  });

  it("lists the assistants on /v1/models with name, description and the owner's name, never an email", async () => {
    const listed = await request(world.server, 'GET', '/v1/models', { token: frontEndKey });
    expect(listed.status).toBe(200);
    const entry = listed.body.data.find((item: { id: string }) => item.id === model);
    expect(entry).toMatchObject({ object: 'model', name: 'Plant tutor', description: expect.any(String), owned_by: expect.any(String) });
    expect(JSON.stringify(listed.body)).not.toContain('@');
  });
});
