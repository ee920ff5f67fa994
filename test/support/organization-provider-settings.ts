/**
 * The organization-settings suites' view of `/api/organizations/{id}/providers`: a server whose
 * administrator manages their own organization's settings, started before the describe block's
 * tests and closed after them, and the two places a secret must never show up in clear besides the
 * API's answers: the organization's stored config and the audit entry of the latest change.
 */
import { afterAll, beforeAll, expect } from 'vitest';
import { possiblyUnset } from './possibly-unset.js';
import type { Dialect } from './test-databases.js';
import { loginAsAdmin, request, startTestServer, type JsonResponse, type TestServer } from './test-server.js';

export interface StoredConfig {
  /** The column as stored, where a secret must appear only sealed. */
  text: string;
  json: any;
}

export interface ProvidersAudit {
  /** The entry's details as stored, where no value may appear. */
  text: string;
  /** The names of the fields the change touched. */
  fields: string[];
}

export interface ProviderSettingsSuite {
  server: TestServer;
  adminToken: string;
  /** The administrator's own organization. */
  organizationId: number;
  /** Its `/api/organizations/{id}/providers`. */
  path: string;
  /** PATCHes `body` to the settings, as the administrator unless `token` says otherwise. */
  patch: (body: unknown, token?: string) => Promise<JsonResponse>;
  storedConfig: () => Promise<StoredConfig>;
  /** The newest `organization.providers_update` entry. */
  lastAudit: () => Promise<ProvidersAudit>;
  /** PATCHes each body in turn, expecting each refused with a 400 naming its field; answers the refusals. */
  expectEachRefused: (cases: ReadonlyArray<[body: unknown, field: string]>) => Promise<JsonResponse[]>;
}

/**
 * Registers the describe block's beforeAll and afterAll; the fields are set once beforeAll has run,
 * and the functions may be taken apart from the object at once, since they read it when called.
 */
export function providerSettingsSuite(dialect: Dialect): ProviderSettingsSuite {
  const suite: ProviderSettingsSuite = {
    patch: (body: unknown, token?: string) => request(suite.server, 'PATCH', suite.path, { token: token ?? suite.adminToken, body }),
    storedConfig: async (): Promise<StoredConfig> => {
      const row = await suite.server.store.db
        .selectFrom('organizations')
        .select('config')
        .where('id', '=', suite.organizationId)
        .executeTakeFirstOrThrow();
      return { text: row.config, json: JSON.parse(row.config) };
    },
    lastAudit: async (): Promise<ProvidersAudit> => {
      const rows = await suite.server.store.db
        .selectFrom('audit_log')
        .select(['id', 'details'])
        .where('action', '=', 'organization.providers_update')
        .orderBy('id', 'desc')
        .limit(1)
        .execute();
      const details = rows[0]!.details;
      return { text: details, fields: JSON.parse(details).fields };
    },
    expectEachRefused: async (cases: ReadonlyArray<[body: unknown, field: string]>): Promise<JsonResponse[]> => {
      const refusals: JsonResponse[] = [];
      for (const [body, field] of cases) {
        const response = await suite.patch(body);
        expect(response.status, JSON.stringify(body)).toBe(400);
        expect(response.body.error.param, JSON.stringify(body)).toBe(field);
        refusals.push(response);
      }
      return refusals;
    },
  } as ProviderSettingsSuite;
  beforeAll(async () => {
    suite.server = await startTestServer(dialect);
    suite.adminToken = await loginAsAdmin(suite.server);
    suite.organizationId = (await request(suite.server, 'GET', '/api/me', { token: suite.adminToken })).body.organization_id;
    suite.path = `/api/organizations/${suite.organizationId}/providers`;
  });
  afterAll(async () => {
    await possiblyUnset(suite.server)?.close();
  });
  return suite;
}
