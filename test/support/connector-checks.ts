/**
 * Checks every provider connector must pass, written once for each connector's test: what a
 * streamed answer carried, a refused call reported cleanly, an organization's provider URL used
 * with its own key only, and an organization URL at a loopback address refused. Each connector's
 * test keeps what is its provider's own: the wire format its fake records.
 */
import type OpenAI from 'openai';
import type { ChatCompletionChunk } from 'openai/resources/chat/completions';
import { expect } from 'vitest';
import type { ConnectorWorld } from './connector-world.js';
import type { Dialect } from './test-databases.js';
import { loginAsAdmin, request, startTestServer } from './test-server.js';

export interface StreamedAnswer {
  content: string;
  reasoning: string;
  contentChunks: number;
}

/** The text and reasoning a streamed answer carried, and how many chunks of text it came in. */
export async function readStream(stream: AsyncIterable<ChatCompletionChunk>): Promise<StreamedAnswer> {
  const answer: StreamedAnswer = { content: '', reasoning: '', contentChunks: 0 };
  for await (const chunk of stream) {
    const delta = chunk.choices[0]?.delta as { content?: string; reasoning_content?: string } | undefined;
    if (delta?.content) {
      answer.content += delta.content;
      answer.contentChunks += 1;
    }
    if (delta?.reasoning_content) answer.reasoning += delta.reasoning_content;
  }
  return answer;
}

/** The answer's text to one question, asked for as a stream or whole. */
export async function answerText(client: OpenAI, model: string, question: string, stream: boolean): Promise<string> {
  const body = { model, messages: [{ role: 'user' as const, content: question }] };
  if (stream) return (await readStream(await client.chat.completions.create({ ...body, stream: true }))).content;
  return (await client.chat.completions.create(body)).choices[0]!.message.content ?? '';
}

/** A chat the provider refused answers the catalogue's status and code, with no key and no stack in the answer or the logs. */
export async function expectCleanRefusal(world: ConnectorWorld, expected: { status: number; code: string; key: string }): Promise<void> {
  const response = await request(world.server, 'POST', '/v1/chat/completions', {
    token: world.token,
    body: { model: world.plainModel, messages: [{ role: 'user', content: 'hello' }] },
  });
  expect(response.status, response.text).toBe(expected.status);
  expect(response.body.error.code).toBe(expected.code);
  expect(response.text).not.toContain(expected.key);
  expect(response.text).not.toMatch(/\bat .+\.(?:ts|js):\d+/);
  expect(world.server.logLines.filter((line) => line.includes(expected.key))).toEqual([]);
}

export interface OrganizationProviderCheck {
  world: ConnectorWorld;
  /** The connector's name in the organization's providers. */
  connector: string;
  /** The organization's fake: its URL, and the key its last request carried. */
  organizationBaseUrl: string;
  lastOrganizationKey: () => unknown;
  serverKey: string;
  organizationKey: string;
}

/**
 * An organization's own provider URL is used with the organization's key only: with none set the
 * chat is refused and the server's key never goes there; once set, the key is never answered,
 * stored in clear or logged, and the organization's provider answers. The providers are cleared
 * again at the end.
 */
export async function expectOrganizationProviderKeyKeptApart(check: OrganizationProviderCheck): Promise<void> {
  const { server, token, organizationId, client, plainModel } = check.world;
  const providersPath = `/api/organizations/${organizationId}/providers`;
  const providers = (settings: Record<string, unknown>) => ({ providers: { [check.connector]: settings } });

  const cleared = await request(server, 'PATCH', providersPath, { token, body: providers({ base_url: check.organizationBaseUrl }) });
  expect(cleared.status, cleared.text).toBe(200);
  const refused = await request(server, 'POST', '/v1/chat/completions', {
    token,
    body: { model: plainModel, messages: [{ role: 'user', content: 'hello' }] },
  });
  expect(refused.status).toBe(502);
  expect(refused.body.error.message).toContain('none is set for its URL');
  expect(check.lastOrganizationKey()).not.toBe(check.serverKey);

  const updated = await request(server, 'PATCH', providersPath, { token, body: providers({ api_key: check.organizationKey }) });
  expect(updated.body.providers[check.connector]).toEqual({ base_url: check.organizationBaseUrl, api_key_set: true });
  expect(updated.text).not.toContain(check.organizationKey);
  expect((await request(server, 'GET', providersPath, { token })).text).not.toContain(check.organizationKey);
  const row = await server.store.db.selectFrom('organizations').select('config').where('id', '=', organizationId).executeTakeFirstOrThrow();
  expect(row.config).not.toContain(check.organizationKey);

  const answer = await client.chat.completions.create({ model: plainModel, messages: [{ role: 'user', content: 'which provider?' }] });
  expect(answer.choices[0]!.message.content).toBe('echo: which provider?');
  expect(check.lastOrganizationKey()).toBe(check.organizationKey);
  expect(server.logLines.filter((line) => line.includes(check.organizationKey))).toEqual([]);
  await request(server, 'PATCH', providersPath, { token, body: providers({ api_key: null, base_url: null }) });
}

/** An organization's provider URL at a loopback address is refused unless OUTBOUND_ALLOWED_HOSTS names it, and nothing is sent there. */
export async function expectLoopbackProviderUrlRefused(options: {
  dialect: Dialect;
  connector: string;
  fake: { baseUrl: string; requests: unknown[] };
  apiKey: string;
}): Promise<void> {
  const guarded = await startTestServer(options.dialect, { environment: { OUTBOUND_ALLOWED_HOSTS: '' } });
  try {
    const adminToken = await loginAsAdmin(guarded);
    const organization = (await request(guarded, 'GET', '/api/me', { token: adminToken })).body.organization_id;
    const saved = await request(guarded, 'PATCH', `/api/organizations/${organization}/providers`, {
      token: adminToken,
      body: { providers: { [options.connector]: { base_url: options.fake.baseUrl, api_key: options.apiKey } } },
    });
    expect(saved.status).toBe(400);
    expect(saved.body.error.code).toBe('url_refused');
    expect(saved.body.error.param).toBe(`providers.${options.connector}.base_url`);
    expect(options.fake.requests).toEqual([]);
  } finally {
    await guarded.close();
  }
}
