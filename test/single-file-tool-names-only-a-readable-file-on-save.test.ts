// Proves over real HTTP, on SQLite and PostgreSQL, that saving an assistant (create, PATCH, import) whose single-file tool names a file its owner may not read — /etc/passwd, a ../ path, another user's file, a file that does not exist, a deleted one — is a 400 invalid_metadata naming the field, worded alike whether the file exists or not, and stores nothing; that the owner's own file is accepted; and that the import dry run reports such a file as blocking.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_DIALECTS } from './support/test-databases.js';
import { loginAsAdmin, request, startTestServer, type JsonResponse, type TestServer } from './support/test-server.js';
import { peopleInTwoOrganizations } from './support/two-organizations.js';
import { uploadFile, type UploadedFile } from './support/upload-file.js';

function multiTool(filePath: string): Record<string, unknown> {
  return { assistant_type: 'multi_tool', tools: [{ type: 'single_file_rag', enabled: true, config: { file_path: filePath } }] };
}

function lambExport(metadata: Record<string, unknown>): Record<string, unknown> {
  return { name: 'Imported', description: '', system_prompt: '', prompt_template: '', metadata: JSON.stringify(metadata), RAG_Top_k: 3 };
}

describe.each(TEST_DIALECTS)('a single-file tool names only a file its owner may read, on %s', (dialect) => {
  let server: TestServer;
  let owner: string;
  let colleague: string;
  let ownFile: UploadedFile;
  let colleagueFile: UploadedFile;
  let deletedFile: UploadedFile;
  let refusedPaths: Record<string, string>;

  async function assistantCount(): Promise<number> {
    return (await server.store.db.selectFrom('assistants').select('id').execute()).length;
  }

  /** Expects a 400 invalid_metadata naming `param`, in the same words whichever refused path was sent, and nothing stored. */
  function expectRefused(response: JsonResponse, param: string): void {
    expect(response.status, response.text).toBe(400);
    expect(response.body.error.code).toBe('invalid_metadata');
    expect(response.body.error.param).toBe(param);
    expect(response.body.error.message).toBe(
      `${param} does not name a file that this assistant's owner (owner@merino.test) may read: use the file_path the files API answered with for one of their uploaded files.`,
    );
    expect(response.text).not.toContain('root:');
  }

  beforeAll(async () => {
    server = await startTestServer(dialect);
    const adminToken = await loginAsAdmin(server);
    [owner, colleague] = (await peopleInTwoOrganizations(server, adminToken, [
      { email: 'owner@merino.test', role: 'creator', organization: 'A' },
      { email: 'colleague@merino.test', role: 'creator', organization: 'A' },
    ])) as [string, string];
    ownFile = await uploadFile(server, owner, 'notes.md', '# Notes\nPhotosynthesis.');
    colleagueFile = await uploadFile(server, colleague, 'secret.md', 'The colleague’s own notes.');
    deletedFile = await uploadFile(server, owner, 'old.md', 'Old notes.');
    expect((await request(server, 'DELETE', `/api/files/${deletedFile.id}`, { token: owner })).status).toBe(204);
    const ownerId = ownFile.file_path.split('/')[0]!;
    refusedPaths = {
      'an absolute system path': '/etc/passwd',
      'a ../ traversal': `${ownerId}/../../etc/passwd`,
      'a relative ../ path': '../notes.md',
      'another user’s file': colleagueFile.file_path,
      'a file that does not exist': `${ownerId}/never-uploaded.md`,
      'a deleted file': deletedFile.file_path,
      'a percent-encoded path': `${ownerId}/%2e%2e%2fnotes.md`,
    };
  });

  afterAll(async () => {
    await server.close();
  });

  it('refuses each on create, stores nothing, and accepts the owner’s own file', async () => {
    const before = await assistantCount();
    for (const [, filePath] of Object.entries(refusedPaths)) {
      const response = await request(server, 'POST', '/api/assistants', {
        token: owner,
        body: { name: 'tutor', metadata: multiTool(filePath) },
      });
      expectRefused(response, 'metadata.tools[0].config.file_path');
    }
    expect(await assistantCount()).toBe(before);
    const accepted = await request(server, 'POST', '/api/assistants', {
      token: owner,
      body: { name: 'tutor', metadata: multiTool(ownFile.file_path) },
    });
    expect(accepted.status, accepted.text).toBe(201);
    expect(accepted.body.metadata.tools[0].config.file_path).toBe(ownFile.file_path);
  });

  it('refuses a classic assistant’s top-level file_path and names every refused tool', async () => {
    const classic = await request(server, 'POST', '/api/assistants', {
      token: owner,
      body: { name: 'classic', metadata: { rag_processor: 'single_file', file_path: '/etc/passwd' } },
    });
    expectRefused(classic, 'metadata.file_path');
    const several = await request(server, 'POST', '/api/assistants', {
      token: owner,
      body: {
        name: 'several',
        metadata: {
          assistant_type: 'multi_tool',
          tools: [
            { type: 'single_file_rag', enabled: true, config: { file_path: ownFile.file_path } },
            { type: 'single_file', enabled: false, config: { file_path: colleagueFile.file_path } },
            { type: 'single_file_rag', enabled: true, config: { file_path: '/etc/shadow' } },
          ],
        },
      },
    });
    expectRefused(several, 'metadata.tools[1].config.file_path');
    expect(several.body.error.details.errors.map((problem: { path: string }) => problem.path)).toEqual([
      'metadata.tools[1].config.file_path',
      'metadata.tools[2].config.file_path',
    ]);
  });

  it('refuses each on update and leaves the stored metadata as it was', async () => {
    const created = await request(server, 'POST', '/api/assistants', {
      token: owner,
      body: { name: 'kept', metadata: multiTool(ownFile.file_path) },
    });
    expect(created.status, created.text).toBe(201);
    for (const [, filePath] of Object.entries(refusedPaths)) {
      const response = await request(server, 'PATCH', `/api/assistants/${created.body.id}`, {
        token: owner,
        body: { metadata: multiTool(filePath) },
      });
      expectRefused(response, 'metadata.tools[0].config.file_path');
    }
    const stored = await request(server, 'GET', `/api/assistants/${created.body.id}`, { token: owner });
    expect(stored.body.metadata.tools[0].config.file_path).toBe(ownFile.file_path);
  });

  it('checks an administrator’s update as the stored owner, who the tool reads as', async () => {
    const created = await request(server, 'POST', '/api/assistants', {
      token: owner,
      body: { name: 'admin-edited', metadata: multiTool(ownFile.file_path) },
    });
    const adminToken = await loginAsAdmin(server);
    // The system admin may read the colleague's file, but the assistant's owner may not.
    const response = await request(server, 'PATCH', `/api/assistants/${created.body.id}`, {
      token: adminToken,
      body: { metadata: multiTool(colleagueFile.file_path) },
    });
    expectRefused(response, 'metadata.tools[0].config.file_path');
  });

  it('refuses each on import, stores nothing, imports the owner’s own file, and the dry run blocks it', async () => {
    const before = await assistantCount();
    for (const [, filePath] of Object.entries(refusedPaths)) {
      const response = await request(server, 'POST', '/api/assistants/import', { token: owner, body: lambExport(multiTool(filePath)) });
      expectRefused(response, 'metadata.tools[0].config.file_path');
      const preview = await request(server, 'POST', '/api/assistants/import?dry_run=true', {
        token: owner,
        body: lambExport(multiTool(filePath)),
      });
      expect(preview.status, preview.text).toBe(200);
      expect(preview.body.problems).toEqual([
        expect.objectContaining({ path: 'metadata.tools[0].config.file_path', code: 'missing_file', blocking: true }),
      ]);
    }
    expect(await assistantCount()).toBe(before);
    const imported = await request(server, 'POST', '/api/assistants/import', {
      token: owner,
      body: lambExport(multiTool(ownFile.file_path)),
    });
    expect(imported.status, imported.text).toBe(201);
  });

  it('answers 50 saves at once naming refused and readable files, each correctly', async () => {
    const responses = await Promise.all(
      Array.from({ length: 50 }, (_, index) =>
        request(server, 'POST', '/api/assistants', {
          token: owner,
          body: { name: `burst ${index}`, metadata: multiTool(index % 2 === 0 ? ownFile.file_path : colleagueFile.file_path) },
        }),
      ),
    );
    responses.forEach((response, index) => {
      if (index % 2 === 0) expect(response.status, response.text).toBe(201);
      else expectRefused(response, 'metadata.tools[0].config.file_path');
    });
  });
});
