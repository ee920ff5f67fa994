/**
 * Proves an organization's disabled plugins: a disabled tool is missing from the studio's
 * catalogue (for that organization only), an assistant using it cannot be saved (400
 * `plugin_disabled` naming the tool), and chatting with an assistant saved before it was disabled
 * is refused before the model is called, streamed or not; enabling it again restores all three.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertOrganization } from '../src/store/organizations-repository.js';
import { startFakeOpenAiServer, type FakeOpenAiServer } from './fakes/fake-openai-server.js';
import { TEST_DIALECTS } from './support/test-databases.js';
import { createUser, loginAsAdmin, request, startTestServer, type TestServer } from './support/test-server.js';
import { possiblyUnset } from './support/possibly-unset.js';

const WEATHER_ASSISTANT = { name: 'Field trip', metadata: { connector: 'openai', llm: 'gpt-4o-mini', tools: ['weather'] } };

describe.each(TEST_DIALECTS)('disabled plugins on %s', (dialect) => {
  let fake: FakeOpenAiServer;
  let server: TestServer;
  let systemAdmin: string;
  let admin: string;
  let creator: string;
  let otherCreator: string;
  let organizationId: number;
  let assistantModel: string;

  beforeAll(async () => {
    fake = await startFakeOpenAiServer();
    server = await startTestServer(dialect, { environment: { OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: fake.baseUrl } });
    systemAdmin = await loginAsAdmin(server);
    organizationId = await insertOrganization(server.store.db, 'faculty-plugins', 'Faculty');
    admin = (await createUser(server, systemAdmin, { email: 'admin@plugins.test', role: 'admin', organization_id: organizationId })).token;
    creator = (await createUser(server, systemAdmin, { email: 'creator@plugins.test', role: 'creator', organization_id: organizationId }))
      .token;
    otherCreator = (await createUser(server, systemAdmin, { email: 'creator@elsewhere.test', role: 'creator' })).token;
    const created = await request(server, 'POST', '/api/assistants', { token: creator, body: WEATHER_ASSISTANT });
    expect(created.status, created.text).toBe(201);
    assistantModel = `lamb_assistant.${created.body.id}`;
  });

  afterAll(async () => {
    await possiblyUnset(server)?.close();
    await possiblyUnset(fake)?.close();
  });

  const setWeather = async (enabled: boolean) => {
    const changed = await request(server, 'PATCH', `/api/organizations/${organizationId}/settings`, {
      token: admin,
      body: { plugins: { tools: { weather: enabled } } },
    });
    expect(changed.status, changed.text).toBe(200);
  };
  const toolNames = async (token: string, path: string) =>
    ((await request(server, 'GET', path, { token })).body.tools as Array<{ name: string }>).map((tool) => tool.name);

  it('leaves a disabled tool out of the catalogue, for its organization only', async () => {
    expect(await toolNames(creator, '/lamb/v1/completions/tools')).toContain('weather');
    await setWeather(false);
    expect(await toolNames(creator, '/lamb/v1/completions/tools')).not.toContain('weather');
    expect(await toolNames(creator, '/lamb/v1/completions/tools')).toContain('simple_rag');
    expect(await toolNames(creator, '/lamb/v1/completions/list')).not.toContain('weather');
    expect(await toolNames(otherCreator, '/lamb/v1/completions/tools')).toContain('weather');
  });

  it('refuses to save an assistant using it, naming the tool, on create, update and import', async () => {
    const created = await request(server, 'POST', '/api/assistants', { token: creator, body: { ...WEATHER_ASSISTANT, name: 'Another' } });
    expect(created.status).toBe(400);
    expect(created.body.error.code).toBe('plugin_disabled');
    expect(created.body.error.message).toContain('"weather"');
    expect(created.body.error.param).toBe('metadata.tools[0].type');

    const plain = await request(server, 'POST', '/api/assistants', {
      token: creator,
      body: { name: 'Plain', metadata: { connector: 'openai', llm: 'gpt-4o-mini' } },
    });
    expect(plain.status).toBe(201);
    const patched = await request(server, 'PATCH', `/api/assistants/${plain.body.id}`, {
      token: creator,
      body: { metadata: WEATHER_ASSISTANT.metadata },
    });
    expect(patched.status, patched.text).toBe(400);
    expect(patched.body.error.code).toBe('plugin_disabled');
    expect(patched.body.error.message).toContain('"weather"');

    const exported = await request(server, 'GET', `/api/assistants/${assistantModel.split('.')[1]}/export`, { token: creator });
    expect(exported.status).toBe(200);
    const imported = await request(server, 'POST', '/api/assistants/import', { token: creator, body: exported.body });
    expect(imported.status, imported.text).toBe(400);
    expect(imported.body.error.code).toBe('plugin_disabled');
    expect(imported.body.error.message).toContain('"weather"');

    // A switched-off entry runs nothing, so it may be kept.
    const switchedOff = await request(server, 'POST', '/api/assistants', {
      token: creator,
      body: {
        name: 'Kept for later',
        metadata: {
          connector: 'openai',
          llm: 'gpt-4o-mini',
          assistant_type: 'multi_tool',
          tools: [{ type: 'weather', enabled: false, config: {} }],
        },
      },
    });
    expect(switchedOff.status, switchedOff.text).toBe(201);
  });

  it('refuses a chat with an assistant that uses it before the model is called, whole or streamed', async () => {
    const requestsBefore = fake.requests.length;
    const whole = await request(server, 'POST', '/v1/chat/completions', {
      token: creator,
      body: { model: assistantModel, messages: [{ role: 'user', content: 'Will it rain in Bilbao?' }] },
    });
    expect(whole.status).toBe(400);
    expect(whole.body.error.code).toBe('plugin_disabled');
    expect(whole.body.error.message).toContain('"weather"');
    expect(whole.text).not.toContain('Bilbao');
    const streamed = await request(server, 'POST', '/v1/chat/completions', {
      token: creator,
      body: { model: assistantModel, stream: true, messages: [{ role: 'user', content: 'And tomorrow?' }] },
    });
    expect(streamed.text).toContain('plugin_disabled');
    expect(fake.requests.length).toBe(requestsBefore);
  });

  it('offers, saves and runs it again once enabled', async () => {
    await setWeather(true);
    expect(await toolNames(creator, '/lamb/v1/completions/tools')).toContain('weather');
    fake.enqueue({ text: 'Sunny.' });
    const chat = await request(server, 'POST', '/v1/chat/completions', {
      token: creator,
      body: { model: assistantModel, messages: [{ role: 'user', content: 'Weather?' }] },
    });
    expect(chat.status, chat.text).toBe(200);
    expect(chat.body.choices[0].message.content).toBe('Sunny.');
  });
});
