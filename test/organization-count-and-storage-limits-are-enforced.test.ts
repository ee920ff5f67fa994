/**
 * Proves an organization's count and size limits: `max_assistants_per_user` and `max_assistants`
 * refuse the next create (and import) with 429 `quota_exceeded` naming the limit, exactly even
 * when 50 creates arrive at once at the edge; deleting one makes room; `storage_gb` refuses a file
 * or knowledge-base upload that would pass it, naming it, and keeps nothing of the refused upload.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertOrganization } from '../src/store/organizations-repository.js';
import { uploadDocument } from './support/knowledge-uploads.js';
import { TEST_DIALECTS } from './support/test-databases.js';
import { createUser, loginAsAdmin, request, startTestServer, type TestServer } from './support/test-server.js';
import { possiblyUnset } from './support/possibly-unset.js';

const PLAIN = { metadata: { connector: 'openai', llm: 'gpt-4o-mini' } };

async function uploadRawFile(server: TestServer, token: string, fileName: string, content: string) {
  const form = new FormData();
  form.append('file', new Blob([content]), fileName);
  const response = await fetch(`${server.baseUrl}/api/files`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}` },
    body: form,
  });
  const text = await response.text();
  return { status: response.status, body: JSON.parse(text), text };
}

describe.each(TEST_DIALECTS)('organization count and storage limits on %s', (dialect) => {
  let server: TestServer;
  let systemAdmin: string;
  let admin: string;
  let creator: string;
  let secondCreator: string;
  let organizationId: number;

  beforeAll(async () => {
    server = await startTestServer(dialect);
    systemAdmin = await loginAsAdmin(server);
    organizationId = await insertOrganization(server.store.db, 'faculty-limits', 'Faculty');
    const person = async (email: string, role: 'admin' | 'creator') =>
      (await createUser(server, systemAdmin, { email, role, organization_id: organizationId })).token;
    admin = await person('admin@limits.test', 'admin');
    creator = await person('creator@limits.test', 'creator');
    secondCreator = await person('second@limits.test', 'creator');
  });

  afterAll(async () => {
    await possiblyUnset(server)?.close();
  });

  const setLimits = async (limits: Record<string, number | null>) => {
    const changed = await request(server, 'PATCH', `/api/organizations/${organizationId}/settings`, { token: admin, body: { limits } });
    expect(changed.status, changed.text).toBe(200);
  };
  const create = (token: string, name: string) => request(server, 'POST', '/api/assistants', { token, body: { name, ...PLAIN } });
  const liveAssistants = async (ownerEmail?: string) => {
    let query = server.store.db
      .selectFrom('assistants')
      .innerJoin('users', 'users.id', 'assistants.owner_id')
      .select((builder) => builder.fn.countAll<number | string>().as('count'))
      .where('assistants.organization_id', '=', organizationId)
      .where('assistants.deleted_at', 'is', null);
    if (ownerEmail !== undefined) query = query.where('users.email', '=', ownerEmail);
    return Number((await query.executeTakeFirstOrThrow()).count);
  };

  it('refuses the assistant past max_assistants_per_user with 429 quota_exceeded naming the limit, and makes room on delete', async () => {
    await setLimits({ max_assistants_per_user: 2 });
    const first = await create(creator, 'One');
    expect(first.status).toBe(201);
    expect((await create(creator, 'Two')).status).toBe(201);
    const third = await create(creator, 'Three');
    expect(third.status).toBe(429);
    expect(third.body.error.code).toBe('quota_exceeded');
    expect(third.body.error.message).toContain('max_assistants_per_user');
    expect(third.body.error.message).toContain('(2)');
    // Another member's count is their own.
    expect((await create(secondCreator, 'Theirs')).status).toBe(201);
    const exported = await request(server, 'GET', `/api/assistants/${first.body.id}/export`, { token: creator });
    const imported = await request(server, 'POST', '/api/assistants/import', { token: creator, body: exported.body });
    expect(imported.status).toBe(429);
    expect(imported.body.error.message).toContain('max_assistants_per_user');
    expect((await request(server, 'DELETE', `/api/assistants/${first.body.id}`, { token: creator })).status).toBe(204);
    expect((await create(creator, 'Three again')).status).toBe(201);
    expect(await liveAssistants('creator@limits.test')).toBe(2);
  });

  it('lets exactly the room left through when 50 creates arrive at once at the edge', async () => {
    await setLimits({ max_assistants_per_user: 5 });
    const answers = await Promise.all(Array.from({ length: 50 }, (_, index) => create(creator, `Burst ${index}`)));
    const statuses = answers.map((answer) => answer.status);
    expect(statuses.filter((status) => status === 201)).toHaveLength(3);
    expect(statuses.filter((status) => status === 429)).toHaveLength(47);
    expect(await liveAssistants('creator@limits.test')).toBe(5);
    for (const refused of answers.filter((answer) => answer.status === 429)) {
      expect(refused.body.error.message).toContain('max_assistants_per_user');
    }
  });

  it('refuses the assistant past max_assistants for the whole organization', async () => {
    await setLimits({ max_assistants_per_user: null, max_assistants: (await liveAssistants()) + 1 });
    expect((await create(secondCreator, 'Last one')).status).toBe(201);
    const refused = await create(admin, 'One too many');
    expect(refused.status).toBe(429);
    expect(refused.body.error.code).toBe('quota_exceeded');
    expect(refused.body.error.message).toContain('max_assistants');
    await setLimits({ max_assistants: null });
    expect((await create(admin, 'No limit now')).status).toBe(201);
  });

  it('refuses a file or document upload that would pass storage_gb, keeping nothing of it', async () => {
    const firstFile = await uploadRawFile(server, creator, 'notes.txt', 'a'.repeat(600));
    expect(firstFile.status, firstFile.text).toBe(201);
    // 1,000 bytes: 600 are stored, so 500 more would pass it.
    await setLimits({ storage_gb: 0.000001 });
    const refusedFile = await uploadRawFile(server, creator, 'more.txt', 'b'.repeat(500));
    expect(refusedFile.status).toBe(429);
    expect(refusedFile.body.error.code).toBe('quota_exceeded');
    expect(refusedFile.body.error.message).toContain('storage_gb');
    const files = await server.store.db.selectFrom('files').select('id').where('organization_id', '=', organizationId).execute();
    expect(files).toHaveLength(1);

    const knowledgeBase = await request(server, 'POST', '/api/knowledge-bases', { token: creator, body: { name: 'Course notes' } });
    expect(knowledgeBase.status, knowledgeBase.text).toBe(201);
    const refusedDocument = await uploadDocument(server, creator, knowledgeBase.body.id, 'chapter.txt', 'c'.repeat(500));
    expect(refusedDocument.status).toBe(429);
    expect(refusedDocument.body.error.code).toBe('quota_exceeded');
    expect(refusedDocument.body.error.message).toContain('storage_gb');
    const documents = await server.store.db.selectFrom('kb_documents').select('id').execute();
    expect(documents).toHaveLength(0);
    // What fits is still taken.
    const fitting = await uploadDocument(server, creator, knowledgeBase.body.id, 'short.txt', 'd'.repeat(300));
    expect(fitting.status, fitting.text).toBe(202);
    await setLimits({ storage_gb: null });
    expect((await uploadRawFile(server, creator, 'more.txt', 'b'.repeat(500))).status).toBe(201);
  });
});
