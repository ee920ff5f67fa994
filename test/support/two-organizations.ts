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
