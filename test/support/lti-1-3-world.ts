/**
 * A Merino test server with one LTI 1.3 platform registered (the platform simulator over
 * loopback, test/fakes/lti-platform.ts) and one published assistant a launch can name: what the
 * LTI 1.3 launch tests start from.
 */
import { expect } from 'vitest';
import type { Dialect } from './test-databases.js';
import { FakeLtiPlatform } from '../fakes/lti-platform.js';
import { createUser, loginAsAdmin, request, startTestServer, type TestServer } from './test-server.js';

export interface Lti13World {
  server: TestServer;
  platform: FakeLtiPlatform;
  assistantId: number;
  close(): Promise<void>;
}

export async function startLti13World(dialect: Dialect, environment: Record<string, string> = {}): Promise<Lti13World> {
  const server = await startTestServer(dialect, { environment });
  const platform = new FakeLtiPlatform();
  await platform.start(`${server.baseUrl}/lti/1.3/jwks`);
  const adminToken = await loginAsAdmin(server);
  const creator = await createUser(server, adminToken, { email: 'creator13@lti.test', role: 'creator' });
  const created = await request(server, 'POST', '/api/assistants', {
    token: creator.token,
    body: {
      name: 'Platform tutor',
      system_prompt: 'You tutor.',
      prompt_template: '{user_input}',
      metadata: { llm: 'gpt-4o-mini', rag_processor: 'no_rag' },
    },
  });
  const assistantId = created.body.id as number;
  const published = await request(server, 'PUT', `/api/assistants/${assistantId}/publish`, {
    token: creator.token,
    body: { published: true },
  });
  expect(published.status).toBe(200);
  const registered = await request(server, 'POST', '/api/lti/platforms', {
    token: adminToken,
    body: {
      issuer: platform.issuer,
      client_id: platform.clientId,
      deployment_ids: [platform.deploymentId],
      auth_login_url: platform.authUrl,
      auth_token_url: `${platform.issuer}/token`,
      jwks_url: platform.jwksUrl,
      frame_origins: [platform.issuer],
    },
  });
  expect(registered.status, registered.text).toBe(201);
  return {
    server,
    platform,
    assistantId,
    async close() {
      await platform.stop();
      await server.close();
    },
  };
}
