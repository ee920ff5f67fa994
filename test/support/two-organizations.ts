/**
 * People in two organizations for the access suites: organization A is the system admin's own,
 * organization B a second one. Returns each person's session token in the order given.
 */
import { insertOrganization } from '../../src/store/organizations-repository.js';
import { expect } from 'vitest';
import { createUser, request, type CreatedUser, type TestServer } from './test-server.js';

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

/** The roles the organization suites' access matrices check, in the order their expected statuses are listed. */
export const ORGANIZATION_ROLES = ['system admin', 'admin of A', 'admin of B', 'creator of A', 'learner of A', 'anonymous'] as const;
export type OrganizationRole = (typeof ORGANIZATION_ROLES)[number];

export interface OrganizationRoles {
  organizationA: number;
  organizationB: number;
  /** Each role's session token; anonymous has none. */
  tokens: Map<OrganizationRole, string | undefined>;
  /** The person behind each role but the system admin and anonymous. */
  people: Record<Exclude<OrganizationRole, 'system admin' | 'anonymous'>, CreatedUser>;
}

export interface OrganizationRolesOptions {
  /** Put before each person's email (admin-a@merino.test and so on). */
  emailPrefix?: string;
  /** Gives each person a name, their email's local part, for suites that read names back. */
  named?: boolean;
}

/**
 * Organization B ("Faculty B") created through the API by the system admin, whose own is A, and
 * one person per role, created in the order the roles are listed.
 */
export async function organizationRoles(
  server: TestServer,
  adminToken: string,
  options: OrganizationRolesOptions = {},
): Promise<OrganizationRoles> {
  const organizationA = (await request(server, 'GET', '/api/me', { token: adminToken })).body.organization_id as number;
  const body = { name: 'Faculty B', slug: 'faculty-b' };
  const created = await request(server, 'POST', '/api/organizations', { token: adminToken, body });
  expect(created.status, created.text).toBe(201);
  const organizationB = created.body.id as number;
  const person = (local: string, role: Person['role'], organizationId: number) =>
    createUser(server, adminToken, {
      email: `${options.emailPrefix ?? ''}${local}@merino.test`,
      role,
      organization_id: organizationId,
      ...(options.named === true && { name: `${options.emailPrefix ?? ''}${local}` }),
    });
  const people = {
    'admin of A': await person('admin-a', 'admin', organizationA),
    'admin of B': await person('admin-b', 'admin', organizationB),
    'creator of A': await person('creator-a', 'creator', organizationA),
    'learner of A': await person('learner-a', 'learner', organizationA),
  };
  const tokens = new Map<OrganizationRole, string | undefined>(
    Object.entries(people).map(([role, user]) => [role as OrganizationRole, user.token]),
  );
  tokens.set('system admin', adminToken).set('anonymous', undefined);
  return { organizationA, organizationB, tokens, people };
}

/** Calls as each role and expects the statuses given in the order of ORGANIZATION_ROLES, compared as one matrix. */
export async function expectStatusesByRole(
  call: (role: OrganizationRole) => Promise<{ status: number }>,
  statuses: number[],
): Promise<void> {
  const got: Record<string, number> = {};
  for (const role of ORGANIZATION_ROLES) got[role] = (await call(role)).status;
  expect(got).toEqual(Object.fromEntries(ORGANIZATION_ROLES.map((role, index) => [role, statuses[index]])));
}
