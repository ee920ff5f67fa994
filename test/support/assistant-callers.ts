/**
 * Who may do what with an assistant, as the access suites try it: every caller (the system admin,
 * the people of the assistant's organization A by role, those of another organization B) against
 * an assistant in every state, each caller signed in by a session of their own.
 */
import { peopleInTwoOrganizations, type Person } from './two-organizations.js';
import { request, type TestServer } from './test-server.js';

export const ASSISTANT_CALLERS = [
  'the system admin',
  'the organization A admin',
  'the owner',
  'another creator of organization A',
  'the learner it is shared with',
  'a learner of organization A',
  'the organization B admin',
  'a learner of organization B',
] as const;
export type AssistantCaller = (typeof ASSISTANT_CALLERS)[number];

export const ASSISTANT_STATES = ['private', 'shared', 'published', 'deleted'] as const;
export type AssistantState = (typeof ASSISTANT_STATES)[number];

/** The email of 'the learner it is shared with', whom a shared assistant names. */
export const SHARED_LEARNER_EMAIL = 'shared.learner.a@merino.test';

/** Everyone but the system admin, in the order of ASSISTANT_CALLERS. */
const PEOPLE: ReadonlyArray<Person & { caller: AssistantCaller }> = [
  { caller: 'the organization A admin', email: 'admin.a@merino.test', role: 'admin', organization: 'A' },
  { caller: 'the owner', email: 'owner.a@merino.test', role: 'creator', organization: 'A' },
  { caller: 'another creator of organization A', email: 'creator.a@merino.test', role: 'creator', organization: 'A' },
  { caller: 'the learner it is shared with', email: SHARED_LEARNER_EMAIL, role: 'learner', organization: 'A' },
  { caller: 'a learner of organization A', email: 'learner.a@merino.test', role: 'learner', organization: 'A' },
  { caller: 'the organization B admin', email: 'admin.b@merino.test', role: 'admin', organization: 'B' },
  { caller: 'a learner of organization B', email: 'learner.b@merino.test', role: 'learner', organization: 'B' },
];

export interface SignedInCallers {
  /** Each caller's session token. */
  sessions: Record<AssistantCaller, string>;
  /** The system admin's own organization. */
  organizationAId: number;
  organizationBId: number;
}

/** Creates every caller but the system admin, whose session is given, in their organizations, and signs each in. */
export async function signInAssistantCallers(server: TestServer, systemAdminToken: string): Promise<SignedInCallers> {
  const tokens = await peopleInTwoOrganizations(server, systemAdminToken, PEOPLE);
  const sessions = { 'the system admin': systemAdminToken } as Record<AssistantCaller, string>;
  PEOPLE.forEach((person, index) => (sessions[person.caller] = tokens[index]!));
  const organizationOf = async (token: string): Promise<number> =>
    (await request(server, 'GET', '/api/me', { token })).body.organization_id as number;
  return {
    sessions,
    organizationAId: await organizationOf(systemAdminToken),
    organizationBId: await organizationOf(sessions['the organization B admin']),
  };
}
