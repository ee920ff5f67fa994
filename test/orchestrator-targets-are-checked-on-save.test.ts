// Proves on SQLite and PostgreSQL that saving an orchestrator (create, PATCH with metadata, import) checks each enabled assistant tool's target as the assistant's owner: own, shared and organization-published targets are accepted; a colleague's private assistant, another organization's, the assistant itself, an orchestrator and a deleted or unknown id are a 400 invalid_metadata naming metadata.tools[i].assistant_id and store nothing; and GET /api/assistants/{id}/tool-candidates lists what the owner may pick, with the reasons, only to those who may update the assistant.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertOrganization } from '../src/store/organizations-repository.js';
import { TEST_DIALECTS } from './support/test-databases.js';
import {
  createUser,
  loginAsAdmin,
  request,
  startTestServer,
  type CreatedUser,
  type JsonResponse,
  type TestServer,
} from './support/test-server.js';
import { possiblyUnset } from './support/possibly-unset.js';

interface ErrorBody {
  code: string;
  message: string;
  param: string;
  details: { errors: Array<{ path: string; message: string }> };
}

interface Candidate {
  id: number;
  name: string;
  description: string;
  owner: string;
  available: boolean;
  reason?: string;
}

/** Metadata of an orchestrator with one assistant tool per target, in order. */
function orchestratorMetadata(...targets: Array<number | { id: number; enabled: boolean }>): Record<string, unknown> {
  return {
    assistant_type: 'multi_tool',
    tools: targets.map((target, index) =>
      typeof target === 'number'
        ? { type: 'assistant', assistant_id: target, name: `helper_${index}` }
        : { type: 'assistant', enabled: target.enabled, config: { assistant_id: target.id, name: `helper_${index}` } },
    ),
  };
}

describe.each(TEST_DIALECTS)('orchestrator targets checked on save on %s', (dialect) => {
  let server: TestServer;
  let adminToken: string;
  let creator: CreatedUser;
  let colleague: CreatedUser;
  let learner: CreatedUser;
  let outsider: CreatedUser;
  /** The creator's own plain assistant. */
  let ownId: number;
  let colleaguePrivateId: number;
  let colleagueSharedId: number;
  let colleaguePublishedId: number;
  /** Published in organization B: the creator may not use it. */
  let outsiderPublishedId: number;
  /** The creator's own orchestrator (uses ownId). */
  let ownOrchestratorId: number;
  let deletedId: number;
  /** A private assistant of the system administrator, in the creator's organization. */
  let adminPrivateId: number;

  async function call(token: string, method: string, path: string, body?: unknown): Promise<JsonResponse> {
    return request(server, method, path, { token, ...(body !== undefined && { body }) });
  }

  async function createAssistant(token: string, body: Record<string, unknown>): Promise<number> {
    const response = await call(token, 'POST', '/api/assistants', body);
    expect(response.status, response.text).toBe(201);
    return response.body.id as number;
  }

  async function assistantCount(): Promise<number> {
    return (await server.store.db.selectFrom('assistants').select('id').execute()).length;
  }

  async function storedMetadata(id: number): Promise<Record<string, any>> {
    const row = await server.store.db.selectFrom('assistants').select('metadata').where('id', '=', id).executeTakeFirstOrThrow();
    return JSON.parse(row.metadata);
  }

  /** Creates as the creator, expects 400 invalid_metadata and that nothing was stored; returns the error. */
  async function expectCreateRefused(metadata: Record<string, unknown>): Promise<ErrorBody> {
    const before = await assistantCount();
    const response = await call(creator.token, 'POST', '/api/assistants', { name: 'Refused orchestrator', metadata });
    expect(response.status, response.text).toBe(400);
    expect(response.body.error.code).toBe('invalid_metadata');
    expect(await assistantCount()).toBe(before);
    return response.body.error as ErrorBody;
  }

  async function candidates(token: string, id: number): Promise<JsonResponse<{ items: Candidate[]; truncated: boolean }>> {
    return call(token, 'GET', `/api/assistants/${id}/tool-candidates`);
  }

  beforeAll(async () => {
    server = await startTestServer(dialect);
    adminToken = await loginAsAdmin(server);
    const organizationAId = (await call(adminToken, 'GET', '/api/me')).body.organization_id as number;
    const organizationBId = await insertOrganization(server.store.db, 'organization-b', 'Organization B');
    [creator, colleague, learner, outsider] = await Promise.all([
      createUser(server, adminToken, { email: 'creator@merino.test', role: 'creator', organization_id: organizationAId }),
      createUser(server, adminToken, { email: 'colleague@merino.test', role: 'creator', organization_id: organizationAId }),
      createUser(server, adminToken, { email: 'learner@merino.test', role: 'learner', organization_id: organizationAId }),
      createUser(server, adminToken, { email: 'outsider@merino.test', role: 'creator', organization_id: organizationBId }),
    ]);
    ownId = await createAssistant(creator.token, { name: 'Math expert', description: 'Solves equations' });
    colleaguePrivateId = await createAssistant(colleague.token, { name: 'Colleague private' });
    colleagueSharedId = await createAssistant(colleague.token, { name: 'Colleague shared' });
    const share = await call(colleague.token, 'PUT', `/api/assistants/${colleagueSharedId}/shares`, { user_emails: [creator.email] });
    expect(share.status, share.text).toBe(200);
    colleaguePublishedId = await createAssistant(colleague.token, { name: 'Colleague published' });
    expect((await call(colleague.token, 'PUT', `/api/assistants/${colleaguePublishedId}/publish`, { published: true })).status).toBe(200);
    outsiderPublishedId = await createAssistant(outsider.token, { name: 'Outsider published' });
    expect((await call(outsider.token, 'PUT', `/api/assistants/${outsiderPublishedId}/publish`, { published: true })).status).toBe(200);
    ownOrchestratorId = await createAssistant(creator.token, { name: 'Own orchestrator', metadata: orchestratorMetadata(ownId) });
    deletedId = await createAssistant(creator.token, { name: 'Deleted helper' });
    expect((await call(creator.token, 'DELETE', `/api/assistants/${deletedId}`)).status).toBe(204);
    adminPrivateId = await createAssistant(adminToken, { name: 'Admin private' });
  });

  afterAll(async () => {
    await possiblyUnset(server)?.close();
  });

  describe('POST /api/assistants', () => {
    it('accepts an orchestrator using its owner’s own assistant with 201 and stores the tool', async () => {
      const id = await createAssistant(creator.token, { name: 'Tutor', metadata: orchestratorMetadata(ownId) });
      expect((await storedMetadata(id)).tools).toEqual([
        { type: 'assistant', enabled: true, config: { assistant_id: ownId, name: 'helper_0' } },
      ]);
    });

    it('refuses a colleague’s private assistant with 400 naming metadata.tools[i].assistant_id and the target', async () => {
      const error = await expectCreateRefused(orchestratorMetadata(ownId, colleaguePrivateId));
      expect(error.param).toBe('metadata.tools[1].assistant_id');
      expect(error.message).toContain(`assistant ${colleaguePrivateId}`);
      expect(error.message).toContain('may not use');
      expect(error.message).toContain(creator.email);
      expect(error.details.errors).toEqual([{ path: 'metadata.tools[1].assistant_id', message: error.message }]);
    });

    it('refuses another organization’s published assistant', async () => {
      const error = await expectCreateRefused(orchestratorMetadata(outsiderPublishedId));
      expect(error.param).toBe('metadata.tools[0].assistant_id');
      expect(error.message).toContain(`assistant ${outsiderPublishedId}`);
    });

    it('accepts a colleague’s assistant shared with the owner, and one published to the organization', async () => {
      const shared = await createAssistant(creator.token, { name: 'Uses shared', metadata: orchestratorMetadata(colleagueSharedId) });
      const published = await createAssistant(creator.token, {
        name: 'Uses published',
        metadata: orchestratorMetadata(colleaguePublishedId),
      });
      expect((await storedMetadata(shared)).tools[0].config.assistant_id).toBe(colleagueSharedId);
      expect((await storedMetadata(published)).tools[0].config.assistant_id).toBe(colleaguePublishedId);
    });

    it('refuses an orchestrator as a target, saying so', async () => {
      const error = await expectCreateRefused(orchestratorMetadata(ownOrchestratorId));
      expect(error.param).toBe('metadata.tools[0].assistant_id');
      expect(error.message).toContain(`assistant ${ownOrchestratorId}`);
      expect(error.message).toContain('orchestrator');
    });

    it('refuses a deleted and an unknown id, listing every refused tool', async () => {
      const error = await expectCreateRefused(orchestratorMetadata(deletedId, ownId, 987_654));
      expect(error.param).toBe('metadata.tools[0].assistant_id');
      expect(error.message).toContain(`assistant ${deletedId}`);
      expect(error.message).toContain('does not exist');
      expect(error.details.errors.map((problem) => problem.path)).toEqual([
        'metadata.tools[0].assistant_id',
        'metadata.tools[2].assistant_id',
      ]);
      expect(error.details.errors[1]?.message).toContain('assistant 987654');
    });

    it('does not check a disabled assistant tool (it is not an orchestrator yet)', async () => {
      const id = await createAssistant(creator.token, {
        name: 'Disabled helper',
        metadata: orchestratorMetadata({ id: colleaguePrivateId, enabled: false }),
      });
      expect((await storedMetadata(id)).tools[0]).toMatchObject({ enabled: false, config: { assistant_id: colleaguePrivateId } });
    });
  });

  describe('PATCH /api/assistants/{id}', () => {
    it('refuses making an assistant use itself with 400, and keeps the stored metadata', async () => {
      const id = await createAssistant(creator.token, { name: 'Self user', metadata: orchestratorMetadata(ownId) });
      const before = await storedMetadata(id);
      const response = await call(creator.token, 'PATCH', `/api/assistants/${id}`, { metadata: orchestratorMetadata(ownId, id) });
      expect(response.status, response.text).toBe(400);
      expect(response.body.error).toMatchObject({ code: 'invalid_metadata', param: 'metadata.tools[1].assistant_id' });
      expect(response.body.error.message).toContain(`assistant ${id}`);
      expect(response.body.error.message).toContain('itself');
      expect(await storedMetadata(id)).toEqual(before);
    });

    it('checks the targets as the stored owner, even when an administrator saves', async () => {
      const id = await createAssistant(creator.token, { name: 'Admin edits it' });
      const refused = await call(adminToken, 'PATCH', `/api/assistants/${id}`, { metadata: orchestratorMetadata(adminPrivateId) });
      expect(refused.status, refused.text).toBe(400);
      expect(refused.body.error.param).toBe('metadata.tools[0].assistant_id');
      expect(refused.body.error.message).toContain(creator.email);
      const accepted = await call(adminToken, 'PATCH', `/api/assistants/${id}`, { metadata: orchestratorMetadata(colleaguePublishedId) });
      expect(accepted.status, accepted.text).toBe(200);
    });

    it('accepts making a target an orchestrator itself (the run-time check refuses calling it later)', async () => {
      const target = await createAssistant(creator.token, { name: 'Target becomes orchestrator' });
      await createAssistant(creator.token, { name: 'Uses the target', metadata: orchestratorMetadata(target) });
      const response = await call(creator.token, 'PATCH', `/api/assistants/${target}`, { metadata: orchestratorMetadata(ownId) });
      expect(response.status, response.text).toBe(200);
    });
  });

  describe('POST /api/assistants/import', () => {
    it('refuses an imported orchestrator whose target the importer may not use, and accepts a usable one', async () => {
      const document = (metadata: Record<string, unknown>) => ({
        name: 'Imported orchestrator',
        metadata: JSON.stringify(metadata),
        api_callback: JSON.stringify(metadata),
      });
      const before = await assistantCount();
      const refused = await call(creator.token, 'POST', '/api/assistants/import', document(orchestratorMetadata(colleaguePrivateId)));
      expect(refused.status, refused.text).toBe(400);
      expect(refused.body.error).toMatchObject({ code: 'invalid_metadata', param: 'metadata.tools[0].assistant_id' });
      expect(await assistantCount()).toBe(before);
      const accepted = await call(creator.token, 'POST', '/api/assistants/import', document(orchestratorMetadata(colleagueSharedId)));
      expect(accepted.status, accepted.text).toBe(201);
    });
  });

  describe('GET /api/assistants/{id}/tool-candidates', () => {
    it('lists what the owner can see, available ones first, the others with the reason', async () => {
      const response = await candidates(creator.token, ownOrchestratorId);
      expect(response.status, response.text).toBe(200);
      const { items, truncated } = response.body;
      expect(truncated).toBe(false);
      const byId = new Map(items.map((item) => [item.id, item]));
      expect(byId.get(ownId)).toEqual({
        id: ownId,
        name: 'Math expert',
        description: 'Solves equations',
        owner: creator.email,
        available: true,
      });
      expect(byId.get(colleagueSharedId)).toMatchObject({ available: true, owner: colleague.email });
      expect(byId.get(colleaguePublishedId)).toMatchObject({ available: true });
      expect(byId.get(ownOrchestratorId)).toMatchObject({ available: false, reason: 'self' });
      const otherOrchestrator = items.find((item) => item.name === 'Tutor');
      expect(otherOrchestrator).toMatchObject({ available: false, reason: 'orchestrator' });
      for (const hidden of [colleaguePrivateId, outsiderPublishedId, deletedId, adminPrivateId])
        expect(byId.has(hidden), String(hidden)).toBe(false);
      const firstUnavailable = items.findIndex((item) => !item.available);
      expect(firstUnavailable).toBeGreaterThan(0);
      expect(items.slice(firstUnavailable).every((item) => !item.available && item.reason !== undefined)).toBe(true);
      expect(items.filter((item) => item.available).every((item) => !('reason' in item))).toBe(true);
    });

    it('lists for the owner, not for the administrator who asks', async () => {
      const response = await candidates(adminToken, ownOrchestratorId);
      expect(response.status, response.text).toBe(200);
      const ids = response.body.items.map((item) => item.id);
      expect(ids).toContain(ownId);
      expect(ids).not.toContain(adminPrivateId);
      expect(ids).not.toContain(colleaguePrivateId);
    });

    it('answers 404 to whoever cannot see the assistant and 403 to whoever may see but not update it', async () => {
      expect((await candidates(learner.token, ownOrchestratorId)).status).toBe(404);
      expect((await candidates(outsider.token, colleaguePublishedId)).status).toBe(404);
      expect((await candidates(learner.token, colleaguePublishedId)).status).toBe(403);
      expect((await candidates(creator.token, colleagueSharedId)).status).toBe(403);
      expect((await candidates(creator.token, 987_654)).status).toBe(404);
    });
  });
});
