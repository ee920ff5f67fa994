/**
 * People in two organizations for the access suites: organization A is the system admin's own,
 * organization B a second one. Returns each person's session token in the order given.
 */
import { insertOrganization } from '../../src/store/organizations-repository.js';
import { createUser, request, type TestServer } from './test-server.js';

export interface Person {
  email: string;
  role: 'admin' | 'creator' | 'learner';
  organization: 'A' | 'B';
}

export async function peopleInTwoOrganizations(server: TestServer, adminToken: string, people: readonly Person[]): Promise<string[]> {
  const organizationAId = (await request(server, 'GET', '/api/me', { token: adminToken })).body.organization_id as number;
  const organizationBId = await insertOrganization(server.store.db, 'organization-b', 'Organization B');
  const users = await Promise.all(
    people.map((person) =>
      createUser(server, adminToken, {
        email: person.email,
        role: person.role,
        organization_id: person.organization === 'A' ? organizationAId : organizationBId,
      }),
    ),
  );
  return users.map((user) => user.token);
}

/** The four roles the access suites check, by session token. */
export interface FourRoles {
  owner: string;
  colleague: string;
  learner: string;
  outsider: string;
}

/** An owner, a creator colleague and a learner in organization A, and a creator in organization B. */
export async function fourRolesInTwoOrganizations(server: TestServer, adminToken: string): Promise<FourRoles> {
  const [owner, colleague, learner, outsider] = (await peopleInTwoOrganizations(server, adminToken, [
    { email: 'owner@merino.test', role: 'creator', organization: 'A' },
    { email: 'colleague@merino.test', role: 'creator', organization: 'A' },
    { email: 'learner@merino.test', role: 'learner', organization: 'A' },
    { email: 'outsider@merino.test', role: 'creator', organization: 'B' },
  ])) as [string, string, string, string];
  return { owner, colleague, learner, outsider };
}
