// Proves the files API over real HTTP on both stores: uploading each accepted text type (bytes on disk, row in the store, audit entries), listing, collision suffixes, deleting, who sees and deletes whose files, refusal by content (a PNG renamed .txt, broken JSON) and by size (413 with nothing stored), malformed multipart as 4xx error JSON, and unicode file names.
import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listAuditEntries } from '../src/store/audit-log-repository.js';
import { insertOrganization } from '../src/store/organizations-repository.js';
import {
  createUser,
  loginAsAdmin,
  request,
  startTestServer,
  type CreatedUser,
  type JsonResponse,
  type TestServer,
} from './support/test-server.js';
import { TEST_DIALECTS } from './support/test-databases.js';
import type { FileView } from '../src/files/file-schemas.js';
import { possiblyUnset } from './support/possibly-unset.js';

// These checks look at the local driver's files on disk, so storage is `local` on both stores; the other drivers keep the same contract (blob-storage-drivers-keep-one-contract.test.ts).
const LOCAL_STORAGE = { STORAGE_URL: 'local' };

const FILE_VIEW_KEYS = ['content_type', 'created_at', 'file_path', 'id', 'name', 'size_bytes'];
const PNG_BYTES = Uint8Array.from([
  0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52, 0x00, 0x00, 0x00, 0x01,
]);

interface UploadOptions {
  field?: string;
  type?: string;
}

async function parsed(response: Response): Promise<JsonResponse> {
  const text = await response.text();
  let body: unknown;
  try {
    body = text === '' ? undefined : JSON.parse(text);
  } catch {
    body = text;
  }
  return { status: response.status, body, headers: response.headers, text };
}

/** Uploads `content` as multipart/form-data the way a browser does, through fetch's FormData. */
async function upload(
  server: TestServer,
  token: string,
  fileName: string,
  content: string | Uint8Array,
  options: UploadOptions = {},
): Promise<JsonResponse> {
  const form = new FormData();
  form.append(options.field ?? 'file', new Blob([content], { type: options.type ?? 'application/octet-stream' }), fileName);
  return parsed(await fetch(`${server.baseUrl}/api/files`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: form }));
}

/** Sends a hand-made body to POST /api/files, for multipart a client library would never produce. */
async function postRaw(server: TestServer, token: string, contentType: string, body: string): Promise<JsonResponse> {
  return parsed(
    await fetch(`${server.baseUrl}/api/files`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': contentType },
      body,
    }),
  );
}

function expectError(
  response: JsonResponse,
  status: number,
  code: string,
): { message: string; param: string | null; details?: Record<string, unknown> } {
  expect(response.status, response.text).toBe(status);
  expect(response.headers.get('content-type') ?? '').toContain('application/json');
  expect(Object.keys(response.body)).toEqual(['error']);
  expect(response.body.error.code, response.text).toBe(code);
  expect(response.body.error.message).toBeTypeOf('string');
  expect(response.text).not.toMatch(/node_modules|\.ts:\d|\.js:\d+:\d+/);
  return response.body.error;
}

function sha256(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

function ownerFolder(server: TestServer, ownerId: number): string {
  return path.join(server.services.settings.dataDirectory, 'files', String(ownerId));
}

/** The names in an owner's folder on disk (temporary files included), [] when it does not exist. */
async function namesOnDisk(server: TestServer, ownerId: number): Promise<string[]> {
  try {
    return (await readdir(ownerFolder(server, ownerId))).sort();
  } catch {
    return [];
  }
}

async function fileRows(server: TestServer, ownerId: number) {
  return server.store.db.selectFrom('files').selectAll().where('owner_id', '=', ownerId).orderBy('id').execute();
}

async function listPaths(server: TestServer, token: string): Promise<string[]> {
  const response = await request(server, 'GET', '/api/files', { token });
  expect(response.status, response.text).toBe(200);
  expect(Object.keys(response.body)).toEqual(['items', 'total']);
  return (response.body.items as FileView[]).map((item) => item.file_path);
}

/** Proves that a refused upload left nothing behind: no new row and no new name on disk. */
async function expectNothingStored(server: TestServer, ownerId: number, attempt: () => Promise<void>): Promise<void> {
  const rowsBefore = (await fileRows(server, ownerId)).length;
  const diskBefore = await namesOnDisk(server, ownerId);
  await attempt();
  expect((await fileRows(server, ownerId)).length).toBe(rowsBefore);
  expect(await namesOnDisk(server, ownerId)).toEqual(diskBefore);
}

describe.each(TEST_DIALECTS)('the files API on %s', (dialect) => {
  let server: TestServer;
  let adminToken: string;
  let alice: CreatedUser;
  let bob: CreatedUser;
  let organizationAdmin: CreatedUser;
  let otherOrganizationAdmin: CreatedUser;
  let learner: CreatedUser;

  beforeAll(async () => {
    server = await startTestServer(dialect, { environment: LOCAL_STORAGE });
    adminToken = await loginAsAdmin(server);
    const organizationA = await insertOrganization(server.store.db, 'files-a', 'Files A');
    const organizationB = await insertOrganization(server.store.db, 'files-b', 'Files B');
    alice = await createUser(server, adminToken, { email: 'alice@files.test', role: 'creator', organization_id: organizationA });
    bob = await createUser(server, adminToken, { email: 'bob@files.test', role: 'creator', organization_id: organizationA });
    organizationAdmin = await createUser(server, adminToken, {
      email: 'admin-a@files.test',
      role: 'admin',
      organization_id: organizationA,
    });
    otherOrganizationAdmin = await createUser(server, adminToken, {
      email: 'admin-b@files.test',
      role: 'admin',
      organization_id: organizationB,
    });
    learner = await createUser(server, adminToken, { email: 'learner@files.test', role: 'learner', organization_id: organizationA });
  });

  afterAll(async () => {
    await possiblyUnset(server)?.close();
  });

  describe('uploading', () => {
    const accepted: ReadonlyArray<{ name: string; content: string; contentType: string }> = [
      { name: 'notes.txt', content: 'Plain notes.\nSecond line.\n', contentType: 'text/plain' },
      { name: 'guide.md', content: '# Guide\n\n- one\n- two\n', contentType: 'text/markdown' },
      { name: 'data.json', content: '{"questions": [{"id": 1, "text": "Why?"}]}', contentType: 'application/json' },
      { name: 'scores.csv', content: 'name,score\nAna,3\nLuis,5\n', contentType: 'text/csv' },
      { name: 'page.html', content: '<!doctype html><html><body><p>Hello</p></body></html>', contentType: 'text/html' },
    ];

    it.each(accepted)(
      'accepts $name: 201 with the file view, the row, the bytes on disk and an audit entry',
      async ({ name, content, contentType }) => {
        const response = await upload(server, alice.token, name, content, { type: 'application/octet-stream' });
        expect(response.status, response.text).toBe(201);
        expect(Object.keys(response.body).sort()).toEqual(FILE_VIEW_KEYS);
        const bytes = new TextEncoder().encode(content);
        expect(response.body).toMatchObject({
          file_path: `${alice.id}/${name}`,
          name,
          content_type: contentType,
          size_bytes: bytes.length,
        });
        expect(Number.isNaN(Date.parse(response.body.created_at))).toBe(false);

        const row = await server.store.db.selectFrom('files').selectAll().where('id', '=', response.body.id).executeTakeFirstOrThrow();
        expect(row).toMatchObject({ owner_id: alice.id, file_path: `${alice.id}/${name}`, sha256: sha256(bytes), deleted_at: null });
        expect(row.stored_name).not.toContain(name.split('.')[0]!);
        const onDisk = await readFile(path.join(ownerFolder(server, alice.id), row.stored_name));
        expect(onDisk.equals(Buffer.from(bytes))).toBe(true);

        const audit = await listAuditEntries(server.store.db, { action: 'file.upload', targetId: String(response.body.id) });
        expect(audit).toHaveLength(1);
        expect(audit[0]!.actor_user_id).toBe(alice.id);
        expect(audit[0]!.details).not.toContain(name);
      },
    );

    it('stores the type decided by extension and content, whatever content type the client declared', async () => {
      const response = await upload(server, alice.token, 'declared.csv', 'a,b\n1,2\n', { type: 'application/vnd.ms-excel' });
      expect(response.status, response.text).toBe(201);
      expect(response.body.content_type).toBe('text/csv');
    });

    it('leaves no temporary file behind in the owner folder', async () => {
      expect((await namesOnDisk(server, alice.id)).filter((name) => name.startsWith('.'))).toEqual([]);
    });

    it('adds -2, -3 before the extension when the owner already has a live file of that name; other owners are not collisions', async () => {
      const first = await upload(server, alice.token, 'same.txt', 'one');
      const second = await upload(server, alice.token, 'same.txt', 'two');
      const third = await upload(server, alice.token, 'same.txt', 'three');
      const bobs = await upload(server, bob.token, 'same.txt', 'bob');
      expect([first.status, second.status, third.status, bobs.status]).toEqual([201, 201, 201, 201]);
      expect([first.body.file_path, second.body.file_path, third.body.file_path]).toEqual([
        `${alice.id}/same.txt`,
        `${alice.id}/same-2.txt`,
        `${alice.id}/same-3.txt`,
      ]);
      expect([first.body.name, second.body.name, third.body.name]).toEqual(['same.txt', 'same.txt', 'same.txt']);
      expect(bobs.body.file_path).toBe(`${bob.id}/same.txt`);
    });

    it('gives concurrent uploads of one name distinct paths', async () => {
      const responses = await Promise.all(Array.from({ length: 4 }, (_, index) => upload(server, bob.token, 'race.md', `# take ${index}`)));
      expect(responses.map((response) => response.status)).toEqual([201, 201, 201, 201]);
      const paths = responses.map((response) => response.body.file_path as string);
      expect(new Set(paths).size).toBe(4);
      expect(paths.sort()).toEqual([`${bob.id}/race-2.md`, `${bob.id}/race-3.md`, `${bob.id}/race-4.md`, `${bob.id}/race.md`]);
    });

    it('keeps unicode file names, in the path and the name', async () => {
      const name = 'Résumé — 日本語 🎓.md';
      const response = await upload(server, alice.token, name, '# Ünïcödé\n');
      expect(response.status, response.text).toBe(201);
      expect(response.body).toMatchObject({ file_path: `${alice.id}/${name}`, name });
      expect(await listPaths(server, alice.token)).toContain(`${alice.id}/${name}`);
    });

    it('keeps only the last segment of a file name holding a path, and makes it safe', async () => {
      const response = await upload(server, alice.token, '..\\..\\evil%2f..%2f.txt', 'no escape');
      expect(response.status, response.text).toBe(201);
      expect(response.body.file_path).toBe(`${alice.id}/evil_2f.._2f.txt`);
    });

    it('refuses learners with 403: files feed the tools of assistants they cannot build', async () => {
      await expectNothingStored(server, learner.id, async () => {
        expectError(await upload(server, learner.token, 'mine.txt', 'text'), 403, 'forbidden');
      });
      expect(await listPaths(server, learner.token)).toEqual([]);
    });
  });

  describe('refusing files by type and content, storing nothing', () => {
    const refusals: ReadonlyArray<{ description: string; name: string; content: string | Uint8Array; reason: string }> = [
      { description: 'a PNG renamed .txt', name: 'photo.txt', content: PNG_BYTES, reason: 'binary_content' },
      { description: 'a PNG under its own name', name: 'photo.png', content: PNG_BYTES, reason: 'unsupported_type' },
      { description: 'invalid JSON in a .json file', name: 'broken.json', content: '{"a": [1, 2,}', reason: 'invalid_json' },
      { description: 'plain text named .html', name: 'page.html', content: 'no markup at all', reason: 'not_html' },
      { description: 'Latin-1 text', name: 'latin1.txt', content: Uint8Array.from([0x63, 0x61, 0x66, 0xe9]), reason: 'not_utf8' },
      { description: 'a file with a bell character', name: 'bell.csv', content: 'a,b\n\u0007,2\n', reason: 'control_characters' },
      { description: 'an empty file', name: 'empty.txt', content: '', reason: 'empty' },
      { description: 'a name without an extension', name: 'README', content: 'text', reason: 'unsupported_type' },
      { description: 'an executable named .txt.exe', name: 'notes.txt.exe', content: 'MZ', reason: 'unsupported_type' },
    ];

    it.each(refusals)('$description → 400 invalid_file ($reason)', async ({ name, content, reason }) => {
      await expectNothingStored(server, alice.id, async () => {
        const error = expectError(await upload(server, alice.token, name, content), 400, 'invalid_file');
        expect(error.param).toBe('file');
        expect(error.details).toEqual({ reason });
      });
    });

    it('names why a binary file was refused', async () => {
      const error = expectError(await upload(server, alice.token, 'photo.txt', PNG_BYTES), 400, 'invalid_file');
      expect(error.message).toMatch(/binary.*NUL byte/);
    });

    it('names where a JSON file stops being JSON, without quoting it', async () => {
      const error = expectError(await upload(server, alice.token, 'broken.json', '{"secret": "zebra", }'), 400, 'invalid_file');
      expect(error.message).toMatch(/not valid JSON/);
      expect(error.message).not.toContain('zebra');
    });
  });

  describe('malformed upload requests get 4xx error JSON, never a 5xx', () => {
    it('a JSON body: 415 unsupported_media_type', async () => {
      expectError(
        await request(server, 'POST', '/api/files', { token: alice.token, body: { file: 'text' } }),
        415,
        'unsupported_media_type',
      );
    });

    it('a multipart body without a file: 400 naming the field', async () => {
      const form = new FormData();
      form.append('comment', 'no file here');
      const response = await parsed(
        await fetch(`${server.baseUrl}/api/files`, { method: 'POST', headers: { authorization: `Bearer ${alice.token}` }, body: form }),
      );
      expect(expectError(response, 400, 'invalid_body').param).toBe('file');
    });

    it('a file in another field: 400 naming the field to use', async () => {
      const error = expectError(await upload(server, alice.token, 'notes.txt', 'text', { field: 'upload' }), 400, 'invalid_body');
      expect(error.message).toContain('"file"');
    });

    it('the field "file" sent as a plain text value, not a file: 400', async () => {
      const form = new FormData();
      form.append('file', 'just a value');
      const response = await parsed(
        await fetch(`${server.baseUrl}/api/files`, { method: 'POST', headers: { authorization: `Bearer ${alice.token}` }, body: form }),
      );
      expectError(response, 400, 'invalid_body');
    });

    const malformed: ReadonlyArray<{ description: string; contentType: string; body: string }> = [
      { description: 'no boundary', contentType: 'multipart/form-data', body: 'anything' },
      { description: 'an empty body', contentType: 'multipart/form-data; boundary=xyz', body: '' },
      { description: 'a body that is not multipart', contentType: 'multipart/form-data; boundary=xyz', body: '{"file": "text"}' },
      {
        description: 'a part cut off before its closing boundary',
        contentType: 'multipart/form-data; boundary=xyz',
        body: '--xyz\r\nContent-Disposition: form-data; name="file"; filename="cut.txt"\r\nContent-Type: text/plain\r\n\r\npartial text',
      },
      {
        description: 'a part without headers',
        contentType: 'multipart/form-data; boundary=xyz',
        body: '--xyz\r\n\r\ntext\r\n--xyz--\r\n',
      },
      {
        description: 'a __proto__ field name',
        contentType: 'multipart/form-data; boundary=xyz',
        body: '--xyz\r\nContent-Disposition: form-data; name="__proto__"; filename="x.txt"\r\n\r\ntext\r\n--xyz--\r\n',
      },
    ];

    it.each(malformed)('$description', async ({ contentType, body }) => {
      await expectNothingStored(server, alice.id, async () => {
        const response = await postRaw(server, alice.token, contentType, body);
        expect(response.status, response.text).toBeGreaterThanOrEqual(400);
        expect(response.status, response.text).toBeLessThan(500);
        expect(response.body.error.code).toBeTypeOf('string');
      });
    });

    it('without credentials: 401 before the body is read', async () => {
      const form = new FormData();
      form.append('file', new Blob(['text']), 'x.txt');
      expectError(await parsed(await fetch(`${server.baseUrl}/api/files`, { method: 'POST', body: form })), 401, 'unauthenticated');
    });

    it('leave JSON-only routes refusing multipart with 415', async () => {
      const form = new FormData();
      form.append('name', 'key');
      const response = await parsed(
        await fetch(`${server.baseUrl}/api/api-keys`, { method: 'POST', headers: { authorization: `Bearer ${alice.token}` }, body: form }),
      );
      expectError(response, 415, 'unsupported_media_type');
    });
  });

  describe('listing and deleting', () => {
    it('lists only the caller’s own files, newest first, each with the file view keys', async () => {
      const created = await upload(server, bob.token, 'listed.txt', 'listed');
      const response = await request(server, 'GET', '/api/files', { token: bob.token });
      expect(response.status).toBe(200);
      const items = response.body.items as FileView[];
      expect(items[0]!.id).toBe(created.body.id);
      expect(items.every((item) => item.file_path.startsWith(`${bob.id}/`))).toBe(true);
      expect(items.map((item) => item.id)).toEqual([...items.map((item) => item.id)].sort((left, right) => right - left));
      for (const item of items) expect(Object.keys(item).sort()).toEqual(FILE_VIEW_KEYS);
    });

    it('deletes with 204: the file leaves the list and the disk, a second delete is 404, and the name is free again', async () => {
      const created = await upload(server, alice.token, 'doomed.txt', 'doomed');
      const row = await server.store.db.selectFrom('files').selectAll().where('id', '=', created.body.id).executeTakeFirstOrThrow();
      expect(await namesOnDisk(server, alice.id)).toContain(row.stored_name);

      const deletion = await request(server, 'DELETE', `/api/files/${created.body.id}`, { token: alice.token });
      expect(deletion.status, deletion.text).toBe(204);
      expect(deletion.text).toBe('');

      expect(await listPaths(server, alice.token)).not.toContain(`${alice.id}/doomed.txt`);
      expect(await namesOnDisk(server, alice.id)).not.toContain(row.stored_name);
      const deletedRow = await server.store.db.selectFrom('files').selectAll().where('id', '=', created.body.id).executeTakeFirstOrThrow();
      expect(deletedRow.deleted_at).not.toBeNull();
      expect(await listAuditEntries(server.store.db, { action: 'file.delete', targetId: String(created.body.id) })).toHaveLength(1);
      expectError(await request(server, 'DELETE', `/api/files/${created.body.id}`, { token: alice.token }), 404, 'not_found');

      const again = await upload(server, alice.token, 'doomed.txt', 'back again');
      expect(again.status, again.text).toBe(201);
      expect(again.body.file_path).toBe(`${alice.id}/doomed.txt`);
    });

    it('a file id that never existed: 404', async () => {
      expectError(await request(server, 'DELETE', '/api/files/2147483647', { token: alice.token }), 404, 'not_found');
    });
  });

  describe('ownership', () => {
    let privateFile: FileView;

    beforeAll(async () => {
      const response = await upload(server, alice.token, 'private.md', '# Only mine');
      expect(response.status, response.text).toBe(201);
      privateFile = response.body;
    });

    it('another creator of the organization does not see it and gets 404 deleting it', async () => {
      expect(await listPaths(server, bob.token)).not.toContain(privateFile.file_path);
      expectError(await request(server, 'DELETE', `/api/files/${privateFile.id}`, { token: bob.token }), 404, 'not_found');
      expect(await listPaths(server, alice.token)).toContain(privateFile.file_path);
    });

    it('a learner of the organization does not see it and gets 404 deleting it', async () => {
      expect(await listPaths(server, learner.token)).toEqual([]);
      expectError(await request(server, 'DELETE', `/api/files/${privateFile.id}`, { token: learner.token }), 404, 'not_found');
    });

    it('an admin of another organization does not see it and gets 404 deleting it', async () => {
      expect(await listPaths(server, otherOrganizationAdmin.token)).not.toContain(privateFile.file_path);
      expectError(
        await request(server, 'DELETE', `/api/files/${privateFile.id}`, { token: otherOrganizationAdmin.token }),
        404,
        'not_found',
      );
    });

    it('the admin of its organization sees it, with the files of every member of the organization', async () => {
      const paths = await listPaths(server, organizationAdmin.token);
      expect(paths).toContain(privateFile.file_path);
      expect(paths.some((filePath) => filePath.startsWith(`${bob.id}/`))).toBe(true);
    });

    it('the system admin sees every file', async () => {
      const own = await upload(server, adminToken, 'admin-notes.txt', 'admin');
      expect(own.status, own.text).toBe(201);
      const paths = await listPaths(server, adminToken);
      expect(paths).toEqual(expect.arrayContaining([privateFile.file_path, own.body.file_path]));
    });

    it('the admin of its organization may delete it', async () => {
      expect((await request(server, 'DELETE', `/api/files/${privateFile.id}`, { token: organizationAdmin.token })).status).toBe(204);
      expect(await listPaths(server, alice.token)).not.toContain(privateFile.file_path);
    });
  });
});

describe.each(TEST_DIALECTS)('the upload size limit on %s', (dialect) => {
  const LIMIT = 1024;
  let server: TestServer;
  let alice: CreatedUser;

  beforeAll(async () => {
    server = await startTestServer(dialect, { environment: { ...LOCAL_STORAGE, FILE_UPLOAD_MAX_BYTES: String(LIMIT) } });
    alice = await createUser(server, await loginAsAdmin(server), { email: 'alice@limits.test', role: 'creator' });
  });

  afterAll(async () => {
    await possiblyUnset(server)?.close();
  });

  it(`accepts a file of exactly FILE_UPLOAD_MAX_BYTES (${LIMIT} bytes)`, async () => {
    const response = await upload(server, alice.token, 'exact.txt', 'x'.repeat(LIMIT));
    expect(response.status, response.text).toBe(201);
    expect(response.body.size_bytes).toBe(LIMIT);
  });

  it('refuses one byte more with 413 file_too_large, storing no row and no bytes', async () => {
    await expectNothingStored(server, alice.id, async () => {
      const error = expectError(await upload(server, alice.token, 'over.txt', 'x'.repeat(LIMIT + 1)), 413, 'file_too_large');
      expect(error.message).toContain(String(LIMIT));
      expect(error.details).toEqual({ max_bytes: LIMIT });
    });
  });

  it('refuses a file far over the limit with 413 file_too_large before reading it, storing nothing', async () => {
    await expectNothingStored(server, alice.id, async () => {
      expectError(await upload(server, alice.token, 'huge.txt', 'y'.repeat(512 * 1024)), 413, 'file_too_large');
    });
  });

  it('keeps serving on the same server after refusals', async () => {
    const response = await upload(server, alice.token, 'after.txt', 'still here');
    expect(response.status, response.text).toBe(201);
    expect(await listPaths(server, alice.token)).toEqual([`${alice.id}/after.txt`, `${alice.id}/exact.txt`]);
  });
});
