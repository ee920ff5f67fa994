// Proves over real HTTP, on SQLite and PostgreSQL, that GET /api/files/{id}/text (the files page's preview) answers the file's owner and administrators with its text, cut at FILE_PREVIEW_CHARACTERS and marked truncated; answers a same-organization user, another organization's user and a learner 404 without the text, an anonymous caller 401, a deleted file 404; refuses hostile ids with 400 naming `id`; and serves 50 calls at once alike.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_DIALECTS } from './support/test-databases.js';
import { loginAsAdmin, request, startTestServer, type TestServer } from './support/test-server.js';
import { fourRolesInTwoOrganizations } from './support/two-organizations.js';
import { uploadFile, type UploadedFile } from './support/upload-file.js';

const PREVIEW_CHARACTERS = 100;
const SHORT_TEXT = '# Essay guide\n\nWrite a thesis — then argue it. ñ é ü';
const LONG_TEXT = 'x'.repeat(PREVIEW_CHARACTERS) + 'THE PART PAST THE PREVIEW';

describe.each(TEST_DIALECTS)('a file’s text preview, on %s', (dialect) => {
  let server: TestServer;
  let adminToken: string;
  let owner: string;
  let colleague: string;
  let learner: string;
  let outsider: string;
  let short: UploadedFile;
  let long: UploadedFile;

  beforeAll(async () => {
    server = await startTestServer(dialect, { environment: { FILE_PREVIEW_CHARACTERS: String(PREVIEW_CHARACTERS) } });
    adminToken = await loginAsAdmin(server);
    ({ owner, colleague, learner, outsider } = await fourRolesInTwoOrganizations(server, adminToken));
    short = await uploadFile(server, owner, 'guide.md', SHORT_TEXT);
    long = await uploadFile(server, owner, 'long.txt', LONG_TEXT);
  });

  afterAll(async () => {
    await server.close();
  });

  it('shows the owner and a system administrator the whole short file', async () => {
    for (const token of [owner, adminToken]) {
      const response = await request(server, 'GET', `/api/files/${short.id}/text`, { token });
      expect(response.status, response.text).toBe(200);
      expect(response.body).toEqual({ text: SHORT_TEXT, truncated: false });
    }
  });

  it('cuts a long file at FILE_PREVIEW_CHARACTERS and says so', async () => {
    const response = await request(server, 'GET', `/api/files/${long.id}/text`, { token: owner });
    expect(response.status, response.text).toBe(200);
    expect(response.body).toEqual({ text: 'x'.repeat(PREVIEW_CHARACTERS), truncated: true });
  });

  it('answers a same-organization user, another organization’s user and a learner 404, and an anonymous caller 401', async () => {
    for (const token of [colleague, outsider, learner]) {
      const response = await request(server, 'GET', `/api/files/${short.id}/text`, { token });
      expect(response.status, response.text).toBe(404);
      expect(response.body.error.code).toBe('not_found');
      expect(response.text).not.toContain('Essay guide');
    }
    const anonymous = await request(server, 'GET', `/api/files/${short.id}/text`);
    expect(anonymous.status).toBe(401);
    expect(anonymous.text).not.toContain('Essay guide');
  });

  it('refuses hostile ids with a 400 naming id, and answers a missing or deleted file 404', async () => {
    for (const id of ['abc', '-1', '1.5', '1%20OR%201=1', '99999999999999999999', '..%2F..%2Fetc%2Fpasswd']) {
      const response = await request(server, 'GET', `/api/files/${id}/text`, { token: owner });
      expect(response.status, `${id}: ${response.text}`).toBe(400);
      expect(response.body.error.param).toBe('id');
    }
    expect((await request(server, 'GET', '/api/files/987654/text', { token: owner })).status).toBe(404);
    const doomed = await uploadFile(server, owner, 'doomed.txt', 'soon gone');
    expect((await request(server, 'DELETE', `/api/files/${doomed.id}`, { token: owner })).status).toBe(204);
    const deleted = await request(server, 'GET', `/api/files/${doomed.id}/text`, { token: owner });
    expect(deleted.status).toBe(404);
    expect(deleted.text).not.toContain('soon gone');
  });

  it('answers 50 calls at once alike', async () => {
    const responses = await Promise.all(
      Array.from({ length: 50 }, () => request(server, 'GET', `/api/files/${short.id}/text`, { token: owner })),
    );
    for (const response of responses) {
      expect(response.status, response.text).toBe(200);
      expect(response.body.text).toBe(SHORT_TEXT);
    }
  });
});
