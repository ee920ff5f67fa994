// Proves, on both stores, that the FileReader the single-file tool gets (services.files.readerFor(owner)) reads only files its owner may read, by file_path through the store: every hostile path (traversal, absolute, backslash, percent-encoded, NUL, empty or dot segments) is a clear invalid_parameter, symlinks, FIFOs and tampered rows planted in the data folder are not_found, another owner's file is not_found, and reads stop at the character budget, reporting truncation.
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { identityOf } from '../src/auth/authenticator.js';
import type { Identity } from '../src/auth/identity.js';
import { AppError } from '../src/errors/app-error.js';
import type { FileReader } from '../src/pipeline/plugin-contract/ports.js';
import { insertFile } from '../src/store/files-repository.js';
import { insertOrganization } from '../src/store/organizations-repository.js';
import { nowTimestamp } from '../src/store/schema.js';
import { findUserById } from '../src/store/users-repository.js';
import { createUser, loginAsAdmin, request, startTestServer, type CreatedUser, type TestServer } from './support/test-server.js';
import { TEST_DIALECTS } from './support/test-databases.js';
import { possiblyUnset } from './support/possibly-unset.js';

// These checks look at the local driver's files on disk, so storage is `local` on both stores; the other drivers keep the same contract (blob-storage-drivers-keep-one-contract.test.ts).
const LOCAL_STORAGE = { STORAGE_URL: 'local' };

const SECRET_TEXT = 'TOP SECRET: outside the data folder';

async function upload(server: TestServer, token: string, fileName: string, content: string): Promise<{ id: number; file_path: string }> {
  const form = new FormData();
  form.append('file', new Blob([content]), fileName);
  const response = await fetch(`${server.baseUrl}/api/files`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}` },
    body: form,
  });
  const text = await response.text();
  if (response.status !== 201) throw new Error(`uploading ${fileName} failed with ${response.status}: ${text}`);
  return JSON.parse(text);
}

async function identityFor(server: TestServer, userId: number): Promise<Identity> {
  const user = await findUserById(server.store.db, userId);
  if (!user) throw new Error(`no user ${userId}`);
  return identityOf(user, 'session', 0);
}

/** Awaits a read that must fail, and hands back its AppError; fails the test on contents or any other error. */
async function refusal(reader: FileReader, filePath: string, charactersMaximum = 10_000): Promise<AppError> {
  let outcome: unknown;
  try {
    outcome = await reader.readText(filePath, charactersMaximum);
  } catch (error) {
    outcome = error;
  }
  expect(outcome, `reading ${JSON.stringify(filePath)} must fail with an AppError, got ${JSON.stringify(outcome)}`).toBeInstanceOf(
    AppError,
  );
  const error = outcome as AppError;
  expect(error.message).not.toContain('TOP SECRET');
  expect(error.message).not.toMatch(/root:/);
  return error;
}

function ownerFolder(server: TestServer, ownerId: number): string {
  return path.join(server.services.settings.dataDirectory, 'files', String(ownerId));
}

function storedName(extension = 'txt'): string {
  return `${randomBytes(16).toString('hex')}.${extension}`;
}

/** Inserts a files row directly, as someone with write access to the database could. */
async function plantRow(
  server: TestServer,
  owner: { id: number; organizationId: number },
  filePath: string,
  stored: string,
): Promise<void> {
  await insertFile(server.store.db, {
    owner_id: owner.id,
    organization_id: owner.organizationId,
    file_path: filePath,
    stored_name: stored,
    original_name: 'planted.txt',
    content_type: 'text/plain',
    size_bytes: 1,
    sha256: '0'.repeat(64),
    created_at: nowTimestamp(),
    deleted_at: null,
  });
}

describe.each(TEST_DIALECTS)('the file reader on %s', (dialect) => {
  let server: TestServer;
  let outside: string;
  let secretFile: string;
  let organizationA: number;
  let alice: CreatedUser;
  let bob: CreatedUser;
  let aliceReader: FileReader;
  let bobReader: FileReader;
  let notes: { id: number; file_path: string };

  beforeAll(async () => {
    server = await startTestServer(dialect, { environment: LOCAL_STORAGE });
    outside = await mkdtemp(path.join(os.tmpdir(), 'merino-outside-'));
    secretFile = path.join(outside, 'secret.txt');
    await writeFile(secretFile, SECRET_TEXT);
    const adminToken = await loginAsAdmin(server);
    organizationA = await insertOrganization(server.store.db, 'reader-a', 'Reader A');
    alice = await createUser(server, adminToken, { email: 'alice@reader.test', role: 'creator', organization_id: organizationA });
    bob = await createUser(server, adminToken, { email: 'bob@reader.test', role: 'creator', organization_id: organizationA });
    aliceReader = server.services.files.readerFor(await identityFor(server, alice.id));
    bobReader = server.services.files.readerFor(await identityFor(server, bob.id));
    notes = await upload(server, alice.token, 'notes.txt', 'Alice’s notes: photosynthesis needs light.');
  });

  afterAll(async () => {
    await possiblyUnset(server)?.close();
    if (outside) await rm(outside, { recursive: true, force: true });
  });

  describe('reading what the owner may read', () => {
    it('reads the owner’s own file by its file_path', async () => {
      expect(await aliceReader.readText(notes.file_path, 1_000)).toEqual({
        text: 'Alice’s notes: photosynthesis needs light.',
        truncated: false,
      });
    });

    it('reads a file for the admin of its organization and for a system admin', async () => {
      const adminToken = await loginAsAdmin(server);
      const organizationAdmin = await createUser(server, adminToken, {
        email: 'admin@reader.test',
        role: 'admin',
        organization_id: organizationA,
      });
      const organizationAdminReader = server.services.files.readerFor(await identityFor(server, organizationAdmin.id));
      const systemAdminReader = server.services.files.readerFor(await identityFor(server, 1));
      expect((await organizationAdminReader.readText(notes.file_path, 1_000)).text).toContain('photosynthesis');
      expect((await systemAdminReader.readText(notes.file_path, 1_000)).text).toContain('photosynthesis');
    });

    it('stops at maxCharacters and says truncated; a budget that fits the file says not truncated', async () => {
      const alphabet = await upload(server, alice.token, 'alphabet.txt', 'abcdefghij');
      expect(await aliceReader.readText(alphabet.file_path, 4)).toEqual({ text: 'abcd', truncated: true });
      expect(await aliceReader.readText(alphabet.file_path, 10)).toEqual({ text: 'abcdefghij', truncated: false });
      expect(await aliceReader.readText(alphabet.file_path, 11)).toEqual({ text: 'abcdefghij', truncated: false });
      expect(await aliceReader.readText(alphabet.file_path, 0)).toEqual({ text: '', truncated: true });
    });

    it('never cuts a character in half: the budget counts UTF-16 code units and a surrogate pair stays whole', async () => {
      const emoji = await upload(server, alice.token, 'emoji.md', '🎓🎓🎓');
      const result = await aliceReader.readText(emoji.file_path, 3);
      expect(result).toEqual({ text: '🎓', truncated: true });
    });

    it('decodes multi-byte characters split across read chunks', async () => {
      const content = 'é日🎓'.repeat(40_000);
      const unicode = await upload(server, alice.token, 'unicode.txt', content);
      expect(await aliceReader.readText(unicode.file_path, content.length)).toEqual({ text: content, truncated: false });
    });

    it('returns just the budget from a 5 MB file', async () => {
      const large = await upload(server, alice.token, 'large.txt', 'The quick brown fox. '.repeat(250_000));
      const result = await aliceReader.readText(large.file_path, 100);
      expect(result.text).toHaveLength(100);
      expect(result.text.startsWith('The quick brown fox. ')).toBe(true);
      expect(result.truncated).toBe(true);
    });

    it('refuses a budget that is not a whole number of 0 or more with invalid_parameter', async () => {
      for (const budget of [-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY]) {
        expect((await refusal(aliceReader, notes.file_path, budget)).code).toBe('invalid_parameter');
      }
    });
  });

  describe('refusing hostile paths with invalid_parameter', () => {
    const hostile = [
      '../x',
      '1/../../etc/passwd',
      '/etc/passwd',
      '1/..%2f..%2fetc',
      '1\\..\\x',
      '1/%2e%2e/x',
      '1/x\u0000.txt',
      '1//x',
      './1/x',
      '',
      '..',
      '1/../1/x.txt',
      '1/..%5c..%5cetc',
      '1/%2E%2E%2Fetc%2Fpasswd',
      '1/x\n.txt',
      '1/x/../../../../etc/passwd',
      '..\\..\\etc\\passwd',
      `1/${'a'.repeat(1_000)}`,
    ];

    it.each(hostile)('%j', async (filePath) => {
      const error = await refusal(aliceReader, filePath);
      expect(error.code).toBe('invalid_parameter');
      expect(error.status).toBe(400);
      expect(error.param).toBe('file_path');
      expect(error.message).toMatch(/not a safe file path/);
    });

    it('the owner’s own folder reached through a traversal is refused too', async () => {
      expect((await refusal(aliceReader, `${alice.id}/../${alice.id}/notes.txt`)).code).toBe('invalid_parameter');
    });
  });

  describe('refusing what the owner may not read, or what is not there, with not_found naming the path', () => {
    it('another owner’s valid file_path', async () => {
      const error = await refusal(bobReader, notes.file_path);
      expect(error.code).toBe('not_found');
      expect(error.status).toBe(404);
      expect(error.message).toContain(notes.file_path);
      expect(error.message).not.toContain('photosynthesis');
    });

    it('a path no file has', async () => {
      const error = await refusal(aliceReader, `${alice.id}/missing.txt`);
      expect(error.code).toBe('not_found');
      expect(error.message).toContain(`${alice.id}/missing.txt`);
    });

    it('a deleted file', async () => {
      const doomed = await upload(server, alice.token, 'doomed.txt', 'soon gone');
      expect((await request(server, 'DELETE', `/api/files/${doomed.id}`, { token: alice.token })).status).toBe(204);
      expect((await refusal(aliceReader, doomed.file_path)).code).toBe('not_found');
    });
  });

  describe('refusing files planted in the data folder', () => {
    it('a symlink inside the owner’s folder pointing outside, with a matching row', async () => {
      const stored = storedName();
      await symlink(secretFile, path.join(ownerFolder(server, alice.id), stored));
      await plantRow(server, { id: alice.id, organizationId: organizationA }, `${alice.id}/planted-secret.txt`, stored);
      const error = await refusal(aliceReader, `${alice.id}/planted-secret.txt`);
      expect(error.code).toBe('not_found');
      expect(error.message).toContain(`${alice.id}/planted-secret.txt`);
    });

    it('a symlink to /etc/passwd inside the owner’s folder', async () => {
      const stored = storedName();
      await symlink('/etc/passwd', path.join(ownerFolder(server, alice.id), stored));
      await plantRow(server, { id: alice.id, organizationId: organizationA }, `${alice.id}/passwd.txt`, stored);
      expect((await refusal(aliceReader, `${alice.id}/passwd.txt`)).code).toBe('not_found');
    });

    it('a relative symlink climbing out of the owner’s folder', async () => {
      const stored = storedName();
      await symlink(path.relative(ownerFolder(server, alice.id), secretFile), path.join(ownerFolder(server, alice.id), stored));
      await plantRow(server, { id: alice.id, organizationId: organizationA }, `${alice.id}/relative.txt`, stored);
      expect((await refusal(aliceReader, `${alice.id}/relative.txt`)).code).toBe('not_found');
    });

    it('an owner folder that is itself a symlink to a folder outside', async () => {
      const carol = await createUser(server, await loginAsAdmin(server), {
        email: 'carol@reader.test',
        role: 'creator',
        organization_id: organizationA,
      });
      const stored = storedName();
      const elsewhere = path.join(outside, 'carol');
      await mkdir(elsewhere);
      await writeFile(path.join(elsewhere, stored), SECRET_TEXT);
      await mkdir(path.dirname(ownerFolder(server, carol.id)), { recursive: true });
      await symlink(elsewhere, ownerFolder(server, carol.id));
      await plantRow(server, { id: carol.id, organizationId: organizationA }, `${carol.id}/elsewhere.txt`, stored);
      const carolReader = server.services.files.readerFor(await identityFor(server, carol.id));
      expect((await refusal(carolReader, `${carol.id}/elsewhere.txt`)).code).toBe('not_found');
    });

    it('a row whose stored name is a path', async () => {
      await plantRow(server, { id: alice.id, organizationId: organizationA }, `${alice.id}/tampered.txt`, '../../../../../../etc/passwd');
      expect((await refusal(aliceReader, `${alice.id}/tampered.txt`)).code).toBe('not_found');
    });

    it('a row whose file_path names another owner than its owner_id', async () => {
      const notesRow = await server.store.db.selectFrom('files').selectAll().where('id', '=', notes.id).executeTakeFirstOrThrow();
      await plantRow(server, { id: alice.id, organizationId: organizationA }, `${bob.id}/alice-in-disguise.txt`, notesRow.stored_name);
      expect((await refusal(bobReader, `${bob.id}/alice-in-disguise.txt`)).code).toBe('not_found');
      expect((await refusal(aliceReader, `${bob.id}/alice-in-disguise.txt`)).code).toBe('not_found');
    });

    it('a FIFO planted under a stored name, without blocking', async () => {
      const stored = storedName();
      execFileSync('mkfifo', [path.join(ownerFolder(server, alice.id), stored)]);
      await plantRow(server, { id: alice.id, organizationId: organizationA }, `${alice.id}/fifo.txt`, stored);
      expect((await refusal(aliceReader, `${alice.id}/fifo.txt`)).code).toBe('not_found');
    });
  });
});
