/**
 * Proves who may manage and see an organization's MCP servers: its admins (and system admins)
 * register, list, change and remove them; its creators see them by name only (no URL, no header
 * names) and list their tools; its learners get 403; another organization's admin gets 404 and
 * never sees them listed; anonymous callers get 401. A server at a loopback address is refused
 * when saved unless OUTBOUND_ALLOWED_HOSTS allows it, and a name that resolves to loopback is
 * refused when connecting. Hostile input is a 400 naming the field, and 50 registrations sent at
 * once all succeed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeMcpServer, type FakeMcpServer } from './fakes/fake-mcp-server.js';
import { possiblyUnset } from './support/possibly-unset.js';
import { TEST_DIALECTS } from './support/test-databases.js';
import { loginAsAdmin, request, startTestServer, type TestServer } from './support/test-server.js';
import { peopleInTwoOrganizations } from './support/two-organizations.js';

describe.each(TEST_DIALECTS)('MCP server administration per role (%s)', (dialect) => {
  let mcp: FakeMcpServer;
  let server: TestServer;
  let systemAdmin: string;
  let admin: string;
  let creator: string;
  let learner: string;
  let otherAdmin: string;

  beforeAll(async () => {
    mcp = await startFakeMcpServer();
    // No OUTBOUND_ALLOWED_HOSTS: the fake MCP server on 127.0.0.1 is a loopback address here.
    // (test/mcp-server-tools-run-in-the-tool-loop.test.ts allows it, and uses it.)
    server = await startTestServer(dialect, { environment: { OUTBOUND_ALLOWED_HOSTS: '' } });
    systemAdmin = await loginAsAdmin(server);
    [admin, creator, learner, otherAdmin] = (await peopleInTwoOrganizations(server, systemAdmin, [
      { email: 'admin@a.test', role: 'admin', organization: 'A' },
      { email: 'creator@a.test', role: 'creator', organization: 'A' },
      { email: 'learner@a.test', role: 'learner', organization: 'A' },
      { email: 'admin@b.test', role: 'admin', organization: 'B' },
    ])) as [string, string, string, string];
  }, 120_000);

  afterAll(async () => {
    await possiblyUnset(server)?.close();
    await possiblyUnset(mcp)?.close();
  });

  const body = { name: 'Library search', url: 'https://tools.example.edu/mcp', headers: [{ name: 'X-Api-Key', value: 'k-123' }] };

  it('lets the organization admins manage servers, creators see their names, and nobody else anything', async () => {
    const created = await request(server, 'POST', '/api/mcp-servers', { token: admin, body });
    expect(created.status, created.text).toBe(201);
    expect(created.body).toMatchObject({ name: 'Library search', url: body.url, headers: [{ name: 'X-Api-Key', has_value: true }] });
    const id = created.body.id as number;

    const asCreator = await request(server, 'GET', '/api/mcp-servers', { token: creator });
    expect(asCreator.status).toBe(200);
    expect(asCreator.body.items).toEqual([
      {
        id,
        organization_id: created.body.organization_id,
        name: 'Library search',
        created_at: expect.any(String),
        updated_at: expect.any(String),
      },
    ]);
    expect((await request(server, 'POST', '/api/mcp-servers', { token: creator, body })).status).toBe(403);
    expect((await request(server, 'PATCH', `/api/mcp-servers/${id}`, { token: creator, body: { name: 'x' } })).status).toBe(403);
    expect((await request(server, 'DELETE', `/api/mcp-servers/${id}`, { token: creator })).status).toBe(403);

    expect((await request(server, 'GET', '/api/mcp-servers', { token: learner })).status).toBe(403);
    expect((await request(server, 'GET', `/api/mcp-servers/${id}/tools`, { token: learner })).status).toBe(403);
    expect((await request(server, 'POST', '/api/mcp-servers', { token: learner, body })).status).toBe(403);

    expect((await request(server, 'GET', '/api/mcp-servers', { token: otherAdmin })).body.items).toEqual([]);
    expect((await request(server, 'GET', `/api/mcp-servers/${id}/tools`, { token: otherAdmin })).status).toBe(404);
    expect((await request(server, 'PATCH', `/api/mcp-servers/${id}`, { token: otherAdmin, body: { name: 'mine' } })).status).toBe(404);
    expect((await request(server, 'DELETE', `/api/mcp-servers/${id}`, { token: otherAdmin })).status).toBe(404);
    const organizationA = created.body.organization_id as number;
    expect((await request(server, 'GET', `/api/mcp-servers?organization_id=${organizationA}`, { token: otherAdmin })).status).toBe(404);
    expect((await request(server, 'GET', `/api/mcp-servers?organization_id=${organizationA}`, { token: systemAdmin })).status).toBe(200);

    expect((await request(server, 'GET', '/api/mcp-servers')).status).toBe(401);
    expect((await request(server, 'POST', '/api/mcp-servers', { body })).status).toBe(401);
    expect((await request(server, 'GET', `/api/mcp-servers/${id}/tools`)).status).toBe(401);

    const renamed = await request(server, 'PATCH', `/api/mcp-servers/${id}`, {
      token: admin,
      body: { name: 'Library', headers: [{ name: 'X-Api-Key' }] },
    });
    expect(renamed.status, renamed.text).toBe(200);
    expect(renamed.body.headers).toEqual([{ name: 'X-Api-Key', has_value: true }]);
    expect(JSON.stringify(renamed.body)).not.toContain('k-123');
    expect((await request(server, 'DELETE', `/api/mcp-servers/${id}`, { token: admin })).status).toBe(204);
    expect((await request(server, 'DELETE', `/api/mcp-servers/${id}`, { token: admin })).status).toBe(404);
  });

  it('refuses a loopback server when saved, and a name resolving to loopback when connecting', async () => {
    const refused = await request(server, 'POST', '/api/mcp-servers', { token: admin, body: { ...body, url: mcp.url } });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatchObject({ code: 'url_refused', param: 'url' });
    expect(refused.body.error.message).toContain('OUTBOUND_ALLOWED_HOSTS');
    // A URL that reaches loopback anyway (saved before a rule, or a name resolving there) is refused when connecting.
    const saved = await request(server, 'POST', '/api/mcp-servers', { token: admin, body });
    expect(saved.status, saved.text).toBe(201);
    await server.store.db
      .updateTable('mcp_servers')
      .set({ url: `http://localhost:${new URL(mcp.url).port}/mcp` })
      .where('id', '=', saved.body.id)
      .execute();
    const tools = await request(server, 'GET', `/api/mcp-servers/${saved.body.id}/tools`, { token: creator });
    expect(tools.status).toBe(200);
    expect(tools.body.tools).toEqual([]);
    expect(tools.body.error).toContain('points to localhost, which is not a public address');
    expect(mcp.headers).toEqual([]);
    await request(server, 'DELETE', `/api/mcp-servers/${saved.body.id}`, { token: admin });
  });

  it('refuses hostile input with a 400 naming the field', async () => {
    const cases: Array<[unknown, string]> = [
      [{ ...body, url: 'file:///etc/passwd' }, 'url'],
      [{ ...body, url: 'http://169.254.169.254/latest' }, 'url'],
      [{ ...body, url: 'not a url' }, 'url'],
      [{ ...body, name: 'x'.repeat(101) }, 'name'],
      [{ ...body, headers: [{ name: 'Bad Name', value: 'x' }] }, 'headers[0].name'],
      [{ ...body, headers: [{ name: 'X-A', value: 'a\r\nX-Injected: 1' }] }, 'headers[0].value'],
      [{ ...body, headers: [{ name: 'Host', value: 'evil' }] }, 'headers[0].name'],
      [
        {
          ...body,
          headers: [
            { name: 'X-A', value: '1' },
            { name: 'x-a', value: '2' },
          ],
        },
        'headers[1].name',
      ],
      [{ ...body, headers: [{ name: 'X-Token', value: '{{USER_TOKEN}}' }] }, 'headers[0].value'],
      [{ ...body, extra: true }, 'extra'],
      [{ url: body.url }, 'name'],
    ];
    for (const [input, param] of cases) {
      const refused = await request(server, 'POST', '/api/mcp-servers', { token: admin, body: input });
      expect(refused.status, JSON.stringify(input)).toBe(400);
      expect(refused.body.error.param, JSON.stringify(input)).toBe(param);
      expect(refused.text).not.toMatch(/at .*\.ts:\d+/);
    }
  });

  it('registers 50 servers sent at once, each once', async () => {
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, index) =>
        request(server, 'POST', '/api/mcp-servers', { token: admin, body: { ...body, name: `Concurrent ${index}` } }),
      ),
    );
    expect(results.map((result) => result.status)).toEqual(Array(50).fill(201));
    const listed = await request(server, 'GET', '/api/mcp-servers?limit=100', { token: admin });
    const names = listed.body.items.map((item: { name: string }) => item.name).filter((name: string) => name.startsWith('Concurrent '));
    expect(new Set(names).size).toBe(50);
  });
});
