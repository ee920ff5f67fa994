// Proves over real HTTP, on SQLite and PostgreSQL, that GET /api/files/{id}/usage lists exactly the live assistants whose single-file tools name the file (enabled or not, classic or multi-tool; not a mere mention elsewhere, not a deleted assistant), names only those the caller may see and counts the others, answers each role (owner, same-org user, other-org user, learner, anonymous, administrator) as the file's permissions say, refuses hostile ids, serves 50 calls at once, and that DELETE /api/files/{id} on a file in use is 409 file_in_use unless ?force=true.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_DIALECTS } from './support/test-databases.js';
import { loginAsAdmin, request, startTestServer, type TestServer } from './support/test-server.js';
import { fourRolesInTwoOrganizations } from './support/two-organizations.js';
import { uploadFile, type UploadedFile } from './support/upload-file.js';

function singleFileTool(filePath: string, enabled = true): Record<string, unknown> {
  return { type: 'single_file_rag', enabled, config: { file_path: filePath } };
}

describe.each(TEST_DIALECTS)('which assistants use a file, on %s', (dialect) => {
  let server: TestServer;
  let adminToken: string;
  let owner: string;
  let colleague: string;
  let learner: string;
  let outsider: string;
  let used: UploadedFile;
  let unused: UploadedFile;
  let other: UploadedFile;
  let users: number[];
  let adminAssistant: number;

  async function createAssistant(token: string, name: string, metadata: Record<string, unknown>): Promise<number> {
    const response = await request(server, 'POST', '/api/assistants', { token, body: { name, metadata } });
    expect(response.status, response.text).toBe(201);
    return response.body.id as number;
  }

  beforeAll(async () => {
    server = await startTestServer(dialect);
    adminToken = await loginAsAdmin(server);
    ({ owner, colleague, learner, outsider } = await fourRolesInTwoOrganizations(server, adminToken));
    used = await uploadFile(server, owner, 'notes.md', '# Notes');
    unused = await uploadFile(server, owner, 'spare.md', '# Spare');
    other = await uploadFile(server, owner, 'other.md', '# Other');
    users = [
      await createAssistant(owner, 'enabled tool', { assistant_type: 'multi_tool', tools: [singleFileTool(used.file_path)] }),
      await createAssistant(owner, 'classic', { rag_processor: 'single_file_rag', file_path: used.file_path }),
      await createAssistant(owner, 'disabled tool', {
        assistant_type: 'multi_tool',
        tools: [singleFileTool(other.file_path), singleFileTool(used.file_path, false)],
      }),
    ];
    // Mentions that are not a single-file tool's path: not uses.
    await createAssistant(owner, 'mentions it', {
      assistant_type: 'multi_tool',
      tools: ['no_rag'],
      lamb_extension: { note: used.file_path },
    });
    await createAssistant(owner, 'classic without the tool', { rag_processor: 'no_rag', file_path: used.file_path });
    await createAssistant(owner, 'other file', { assistant_type: 'multi_tool', tools: [singleFileTool(other.file_path)] });
    const deleted = await createAssistant(owner, 'deleted', { assistant_type: 'multi_tool', tools: [singleFileTool(used.file_path)] });
    expect((await request(server, 'DELETE', `/api/assistants/${deleted}`, { token: owner })).status).toBe(204);
    // The system admin may read the owner's file, so may build on it; the owner cannot see that assistant.
    adminAssistant = await createAssistant(adminToken, 'admin’s', {
      assistant_type: 'multi_tool',
      tools: [singleFileTool(used.file_path)],
    });
  });

  afterAll(async () => {
    await server.close();
  });

  it('lists exactly the owner’s assistants that use the file, and counts the one they may not see', async () => {
    const response = await request(server, 'GET', `/api/files/${used.id}/usage`, { token: owner });
    expect(response.status, response.text).toBe(200);
    expect(response.body).toEqual({
      assistants: [
        { id: users[0], name: 'enabled tool', owner: 'owner@merino.test' },
        { id: users[1], name: 'classic', owner: 'owner@merino.test' },
        { id: users[2], name: 'disabled tool', owner: 'owner@merino.test' },
      ],
      hidden_count: 1,
    });
    const none = await request(server, 'GET', `/api/files/${unused.id}/usage`, { token: owner });
    expect(none.body).toEqual({ assistants: [], hidden_count: 0 });
  });

  it('shows an administrator every assistant that uses the file', async () => {
    const response = await request(server, 'GET', `/api/files/${used.id}/usage`, { token: adminToken });
    expect(response.status, response.text).toBe(200);
    expect(response.body.assistants.map((assistant: { id: number }) => assistant.id)).toEqual([...users, adminAssistant]);
    expect(response.body.hidden_count).toBe(0);
  });

  it('answers a same-organization user, another organization’s user and a learner 404, and an anonymous caller 401', async () => {
    for (const token of [colleague, outsider, learner]) {
      const response = await request(server, 'GET', `/api/files/${used.id}/usage`, { token });
      expect(response.status, response.text).toBe(404);
      expect(response.body.error.code).toBe('not_found');
      expect(response.text).not.toContain('enabled tool');
    }
    const anonymous = await request(server, 'GET', `/api/files/${used.id}/usage`);
    expect(anonymous.status).toBe(401);
  });

  it('refuses hostile ids with a 4xx naming the problem', async () => {
    for (const id of ['abc', '-1', '1.5', '1%20OR%201=1', '99999999999999999999']) {
      const response = await request(server, 'GET', `/api/files/${id}/usage`, { token: owner });
      expect(response.status, `${id}: ${response.text}`).toBe(400);
      expect(response.body.error.param).toBe('id');
    }
    const missing = await request(server, 'GET', '/api/files/987654/usage', { token: owner });
    expect(missing.status).toBe(404);
  });

  it('answers 50 calls at once alike', async () => {
    const responses = await Promise.all(
      Array.from({ length: 50 }, () => request(server, 'GET', `/api/files/${used.id}/usage`, { token: owner })),
    );
    for (const response of responses) {
      expect(response.status, response.text).toBe(200);
      expect(response.body.assistants).toHaveLength(3);
    }
  });

  it('refuses to delete a file in use unless forced, and deletes an unused one as before', async () => {
    const refused = await request(server, 'DELETE', `/api/files/${used.id}`, { token: owner });
    expect(refused.status, refused.text).toBe(409);
    expect(refused.body.error.code).toBe('file_in_use');
    expect(refused.body.error.details).toEqual({ assistant_count: 4 });
    const listed = await request(server, 'GET', '/api/files', { token: owner });
    expect(listed.body.items.map((file: { id: number }) => file.id)).toContain(used.id);
    const badFlag = await request(server, 'DELETE', `/api/files/${used.id}?force=maybe`, { token: owner });
    expect(badFlag.status).toBe(400);
    expect(badFlag.body.error.param).toContain('force');
    expect((await request(server, 'DELETE', `/api/files/${unused.id}`, { token: owner })).status).toBe(204);
    expect((await request(server, 'DELETE', `/api/files/${used.id}?force=true`, { token: owner })).status).toBe(204);
    expect((await request(server, 'GET', `/api/files/${used.id}/usage`, { token: owner })).status).toBe(404);
  });
});
