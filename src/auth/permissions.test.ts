// Proves the permission module's decisions cell by cell against an explicit expectation table, with 404 (not_found) for the unseen and 403 (forbidden) for the seen-but-refused.
import { describe, expect, it } from 'vitest';
import { AppError } from '../errors/app-error.js';
import type { Identity } from './identity.js';
import {
  assistantListScope,
  canCreateAssistants,
  decideAssistant,
  decideUser,
  mayNameForwardedUser,
  requireApiKeyCreation,
  requireApiKeyOwner,
  requireAssistantAction,
  requireAssistantConversion,
  requireAssistantCreation,
  requireAssistantTesting,
  requireAssistantInsights,
  requireDecision,
  requireSystemAdminGrant,
  requireUserAction,
  requireUserAdministration,
  requireUserCreation,
  rubricNamespace,
  userAdministrationScope,
  usageScope,
  userScopeIncludes,
  type AssistantAction,
  type AssistantFacts,
  type Decision,
} from './permissions.js';

const ORGANIZATION_A = 1;
const ORGANIZATION_B = 2;
const OWNER_ID = 10;

function identity(fields: Pick<Identity, 'userId' | 'organizationId' | 'role' | 'isSystemAdmin'>): Identity {
  return {
    ...fields,
    email: `user${fields.userId}@merino.test`,
    name: `User ${fields.userId}`,
    credential: 'session',
    credentialId: 1,
    trustedFrontEnd: false,
  };
}

const IDENTITIES = {
  'system admin': identity({ userId: 1, organizationId: ORGANIZATION_A, role: 'admin', isSystemAdmin: true }),
  'org admin of the assistant organization': identity({ userId: 2, organizationId: ORGANIZATION_A, role: 'admin', isSystemAdmin: false }),
  'org admin of another organization': identity({ userId: 3, organizationId: ORGANIZATION_B, role: 'admin', isSystemAdmin: false }),
  owner: identity({ userId: OWNER_ID, organizationId: ORGANIZATION_A, role: 'creator', isSystemAdmin: false }),
  'other creator of the organization': identity({ userId: 11, organizationId: ORGANIZATION_A, role: 'creator', isSystemAdmin: false }),
  'learner it is shared with': identity({ userId: 20, organizationId: ORGANIZATION_A, role: 'learner', isSystemAdmin: false }),
  'learner of the organization': identity({ userId: 21, organizationId: ORGANIZATION_A, role: 'learner', isSystemAdmin: false }),
  'learner of another organization': identity({ userId: 30, organizationId: ORGANIZATION_B, role: 'learner', isSystemAdmin: false }),
} as const satisfies Record<string, Identity>;

type IdentityName = keyof typeof IDENTITIES;

const BASE_FACTS: AssistantFacts = {
  ownerId: OWNER_ID,
  organizationId: ORGANIZATION_A,
  published: false,
  deleted: false,
  sharedWithCaller: false,
};

/** The assistant as the caller sees it; "shared" means shared with the caller, whoever the caller is. */
const STATES = {
  private: BASE_FACTS,
  shared: { ...BASE_FACTS, sharedWithCaller: true },
  published: { ...BASE_FACTS, published: true },
  // Deleted while published and shared, so the table proves deletion overrides both.
  deleted: { ...BASE_FACTS, published: true, sharedWithCaller: true, deleted: true },
} as const satisfies Record<string, AssistantFacts>;

type StateName = keyof typeof STATES;

const ACTIONS: readonly AssistantAction[] = ['view', 'view_configuration', 'chat', 'update', 'delete', 'publish', 'share', 'export'];

/** Y: allowed; F: visible but forbidden (403); H: hidden (404). */
type Outcome = 'Y' | 'F' | 'H';
const Y: Outcome = 'Y';
const F: Outcome = 'F';
const H: Outcome = 'H';

// Columns follow ACTIONS:      view view_configuration chat update delete publish share export
const EXPECTATIONS: ReadonlyArray<[IdentityName, StateName, readonly Outcome[]]> = [
  ['system admin', 'private', [Y, Y, Y, Y, Y, Y, Y, Y]],
  ['system admin', 'shared', [Y, Y, Y, Y, Y, Y, Y, Y]],
  ['system admin', 'published', [Y, Y, Y, Y, Y, Y, Y, Y]],
  ['system admin', 'deleted', [H, H, H, H, H, H, H, H]],

  ['org admin of the assistant organization', 'private', [Y, Y, Y, Y, Y, Y, Y, Y]],
  ['org admin of the assistant organization', 'shared', [Y, Y, Y, Y, Y, Y, Y, Y]],
  ['org admin of the assistant organization', 'published', [Y, Y, Y, Y, Y, Y, Y, Y]],
  ['org admin of the assistant organization', 'deleted', [H, H, H, H, H, H, H, H]],

  ['org admin of another organization', 'private', [H, H, H, H, H, H, H, H]],
  ['org admin of another organization', 'shared', [Y, Y, Y, F, F, F, F, Y]],
  ['org admin of another organization', 'published', [H, H, H, H, H, H, H, H]],
  ['org admin of another organization', 'deleted', [H, H, H, H, H, H, H, H]],

  ['owner', 'private', [Y, Y, Y, Y, Y, Y, Y, Y]],
  ['owner', 'shared', [Y, Y, Y, Y, Y, Y, Y, Y]],
  ['owner', 'published', [Y, Y, Y, Y, Y, Y, Y, Y]],
  ['owner', 'deleted', [H, H, H, H, H, H, H, H]],

  ['other creator of the organization', 'private', [H, H, H, H, H, H, H, H]],
  ['other creator of the organization', 'shared', [Y, Y, Y, F, F, F, F, Y]],
  ['other creator of the organization', 'published', [Y, F, Y, F, F, F, F, F]],
  ['other creator of the organization', 'deleted', [H, H, H, H, H, H, H, H]],

  ['learner it is shared with', 'private', [H, H, H, H, H, H, H, H]],
  ['learner it is shared with', 'shared', [Y, Y, Y, F, F, F, F, Y]],
  ['learner it is shared with', 'published', [Y, F, Y, F, F, F, F, F]],
  ['learner it is shared with', 'deleted', [H, H, H, H, H, H, H, H]],

  ['learner of the organization', 'private', [H, H, H, H, H, H, H, H]],
  ['learner of the organization', 'shared', [Y, Y, Y, F, F, F, F, Y]],
  ['learner of the organization', 'published', [Y, F, Y, F, F, F, F, F]],
  ['learner of the organization', 'deleted', [H, H, H, H, H, H, H, H]],

  ['learner of another organization', 'private', [H, H, H, H, H, H, H, H]],
  ['learner of another organization', 'shared', [Y, Y, Y, F, F, F, F, Y]],
  ['learner of another organization', 'published', [H, H, H, H, H, H, H, H]],
  ['learner of another organization', 'deleted', [H, H, H, H, H, H, H, H]],
];

const EXPECTED_DECISION: Record<Outcome, Decision> = {
  Y: { allowed: true },
  F: { allowed: false, visible: true },
  H: { allowed: false, visible: false },
};

const MATRIX_CASES = EXPECTATIONS.flatMap(([identityName, stateName, outcomes]) =>
  ACTIONS.map((action, index) => {
    const outcome = outcomes[index] as Outcome;
    const verdict = { Y: 'allows', F: 'forbids (visible, forbidden)', H: 'hides (not_found)' }[outcome];
    return { identityName, stateName, action, outcome, verdict };
  }),
);

function thrownBy(action: () => void): unknown {
  try {
    action();
  } catch (error) {
    return error;
  }
  return undefined;
}

function expectAppError(action: () => void, code: AppError['code']): AppError {
  const error = thrownBy(action);
  expect(error).toBeInstanceOf(AppError);
  expect((error as AppError).code).toBe(code);
  return error as AppError;
}

describe('decideAssistant and requireAssistantAction over every identity, assistant state and action', () => {
  it('covers every identity × state pair exactly once and every action in each row', () => {
    const pairs = EXPECTATIONS.map(([identityName, stateName]) => `${identityName}/${stateName}`);
    expect(new Set(pairs).size).toBe(Object.keys(IDENTITIES).length * Object.keys(STATES).length);
    expect(pairs).toHaveLength(new Set(pairs).size);
    for (const [, , outcomes] of EXPECTATIONS) expect(outcomes).toHaveLength(ACTIONS.length);
  });

  it.each(MATRIX_CASES)(
    '$verdict $action of the $stateName assistant to the $identityName',
    ({ identityName, stateName, action, outcome }) => {
      const caller = IDENTITIES[identityName];
      const facts = STATES[stateName];
      expect(decideAssistant(caller, facts, action)).toEqual(EXPECTED_DECISION[outcome]);

      const require = () => requireAssistantAction(caller, facts, action);
      if (outcome === 'Y') expect(require).not.toThrow();
      if (outcome === 'F') expectAppError(require, 'forbidden');
      if (outcome === 'H') expect(expectAppError(require, 'not_found').message).toBe('Assistant not found.');
    },
  );

  it('lets a user an assistant is shared with configure-view it even when it is also published', () => {
    const facts: AssistantFacts = { ...BASE_FACTS, published: true, sharedWithCaller: true };
    expect(decideAssistant(IDENTITIES['learner it is shared with'], facts, 'view_configuration')).toEqual({ allowed: true });
    expect(decideAssistant(IDENTITIES['learner it is shared with'], facts, 'export')).toEqual({ allowed: true });
    expect(decideAssistant(IDENTITIES['learner it is shared with'], facts, 'update')).toEqual({ allowed: false, visible: true });
  });

  it('treats a learner who owns an assistant as its manager (ownership, not role, decides)', () => {
    const learnerOwner = identity({ userId: OWNER_ID, organizationId: ORGANIZATION_A, role: 'learner', isSystemAdmin: false });
    for (const action of ACTIONS) expect(decideAssistant(learnerOwner, BASE_FACTS, action)).toEqual({ allowed: true });
  });

  it('hides a published assistant of organization A from a creator of organization B', () => {
    const foreignCreator = identity({ userId: 40, organizationId: ORGANIZATION_B, role: 'creator', isSystemAdmin: false });
    expect(decideAssistant(foreignCreator, STATES.published, 'view')).toEqual({ allowed: false, visible: false });
  });
});

describe('requireDecision', () => {
  it('passes an allowed decision', () => {
    expect(() => requireDecision({ allowed: true }, 'Thing')).not.toThrow();
  });

  it('turns an invisible refusal into not_found naming the subject', () => {
    const error = expectAppError(() => requireDecision({ allowed: false, visible: false }, 'Thing'), 'not_found');
    expect(error.status).toBe(404);
    expect(error.message).toBe('Thing not found.');
  });

  it('turns a visible refusal into forbidden with status 403', () => {
    expect(expectAppError(() => requireDecision({ allowed: false, visible: true }, 'Thing'), 'forbidden').status).toBe(403);
  });
});

describe('assistantListScope', () => {
  it.each([
    ['system admin', { kind: 'all' }],
    ['org admin of the assistant organization', { kind: 'organization', organizationId: ORGANIZATION_A }],
    ['org admin of another organization', { kind: 'organization', organizationId: ORGANIZATION_B }],
    ['owner', { kind: 'member', organizationId: ORGANIZATION_A, userId: OWNER_ID }],
    ['other creator of the organization', { kind: 'member', organizationId: ORGANIZATION_A, userId: 11 }],
    ['learner of the organization', { kind: 'member', organizationId: ORGANIZATION_A, userId: 21 }],
    ['learner of another organization', { kind: 'member', organizationId: ORGANIZATION_B, userId: 30 }],
  ] as const)('gives the %s the scope %j', (identityName, scope) => {
    expect(assistantListScope(IDENTITIES[identityName])).toEqual(scope);
  });

  it('gives a system admin whose organization role is learner the whole store', () => {
    const learnerSystemAdmin = identity({ userId: 5, organizationId: ORGANIZATION_A, role: 'learner', isSystemAdmin: true });
    expect(assistantListScope(learnerSystemAdmin)).toEqual({ kind: 'all' });
  });
});

describe('requireAssistantCreation', () => {
  it.each(['system admin', 'org admin of the assistant organization', 'owner', 'other creator of the organization'] as const)(
    'lets the %s create assistants',
    (identityName) => {
      expect(canCreateAssistants(IDENTITIES[identityName])).toBe(true);
      expect(() => requireAssistantCreation(IDENTITIES[identityName])).not.toThrow();
    },
  );

  it.each(['learner of the organization', 'learner of another organization'] as const)('refuses the %s with forbidden', (identityName) => {
    expect(canCreateAssistants(IDENTITIES[identityName])).toBe(false);
    const error = expectAppError(() => requireAssistantCreation(IDENTITIES[identityName]), 'forbidden');
    expect(error.message).toMatch(/learners cannot create assistants/i);
  });

  it('lets a system admin whose organization role is learner create assistants', () => {
    const learnerSystemAdmin = identity({ userId: 5, organizationId: ORGANIZATION_A, role: 'learner', isSystemAdmin: true });
    expect(() => requireAssistantCreation(learnerSystemAdmin)).not.toThrow();
  });
});

describe('requireAssistantConversion', () => {
  it.each(['system admin', 'org admin of the assistant organization', 'owner'] as const)(
    'lets the %s convert an assistant whose configuration they see',
    (identityName) => {
      expect(() => requireAssistantConversion(IDENTITIES[identityName], BASE_FACTS)).not.toThrow();
    },
  );

  it('lets a creator an assistant is shared with convert it, as they could export and import it', () => {
    const sharedCreator = IDENTITIES['other creator of the organization'];
    expect(() => requireAssistantConversion(sharedCreator, { ...BASE_FACTS, sharedWithCaller: true })).not.toThrow();
  });

  it('refuses a creator who sees only the published summary with forbidden', () => {
    expectAppError(() => requireAssistantConversion(IDENTITIES['other creator of the organization'], STATES.published), 'forbidden');
  });

  it('refuses a learner it is shared with (they see the configuration but may not create assistants) with forbidden', () => {
    const error = expectAppError(
      () => requireAssistantConversion(IDENTITIES['learner it is shared with'], { ...BASE_FACTS, sharedWithCaller: true }),
      'forbidden',
    );
    expect(error.message).toMatch(/learners cannot create assistants/i);
  });

  it.each(['org admin of another organization', 'learner of another organization', 'other creator of the organization'] as const)(
    'hides an unpublished, unshared assistant from the %s with not_found',
    (identityName) => {
      expectAppError(() => requireAssistantConversion(IDENTITIES[identityName], BASE_FACTS), 'not_found');
    },
  );
});

describe('decideUser and requireUserAction', () => {
  const organizationAAdmin = IDENTITIES['org admin of the assistant organization'];
  const creator = IDENTITIES.owner;
  const learner = IDENTITIES['learner of the organization'];
  const memberOfA = { userId: 21, organizationId: ORGANIZATION_A, isSystemAdmin: false };
  const memberOfB = { userId: 30, organizationId: ORGANIZATION_B, isSystemAdmin: false };
  const systemAdminInA = { userId: 1, organizationId: ORGANIZATION_A, isSystemAdmin: true };

  it('lets a system admin view and update any user of any organization, system admins included', () => {
    for (const target of [memberOfA, memberOfB, { ...systemAdminInA, userId: 99 }]) {
      expect(decideUser(IDENTITIES['system admin'], target, 'view')).toEqual({ allowed: true });
      expect(decideUser(IDENTITIES['system admin'], target, 'update')).toEqual({ allowed: true });
    }
  });

  it('lets an organization admin view and update a user of their own organization', () => {
    expect(decideUser(organizationAAdmin, memberOfA, 'view')).toEqual({ allowed: true });
    expect(decideUser(organizationAAdmin, memberOfA, 'update')).toEqual({ allowed: true });
  });

  it('lets an organization admin view and update their own account', () => {
    const self = { userId: organizationAAdmin.userId, organizationId: ORGANIZATION_A, isSystemAdmin: false };
    expect(decideUser(organizationAAdmin, self, 'update')).toEqual({ allowed: true });
  });

  it('hides a user of another organization from an organization admin with not_found', () => {
    expect(decideUser(organizationAAdmin, memberOfB, 'view')).toEqual({ allowed: false, visible: false });
    expect(decideUser(organizationAAdmin, memberOfB, 'update')).toEqual({ allowed: false, visible: false });
    expectAppError(() => requireUserAction(organizationAAdmin, memberOfB, 'update'), 'not_found');
  });

  it('hides a system admin of the same organization from an organization admin with not_found', () => {
    expect(decideUser(organizationAAdmin, systemAdminInA, 'view')).toEqual({ allowed: false, visible: false });
    expect(decideUser(organizationAAdmin, systemAdminInA, 'update')).toEqual({ allowed: false, visible: false });
    const error = expectAppError(() => requireUserAction(organizationAAdmin, systemAdminInA, 'view'), 'not_found');
    expect(error.message).toBe('User not found.');
  });

  it('hides other users from creators and learners with not_found', () => {
    for (const caller of [creator, learner]) {
      const other = { userId: 999, organizationId: ORGANIZATION_A, isSystemAdmin: false };
      expect(decideUser(caller, other, 'view')).toEqual({ allowed: false, visible: false });
      expect(decideUser(caller, other, 'update')).toEqual({ allowed: false, visible: false });
      expectAppError(() => requireUserAction(caller, other, 'view'), 'not_found');
    }
  });

  it('answers a non-admin updating their own account through /api/users with forbidden, not not_found', () => {
    const self = { userId: learner.userId, organizationId: ORGANIZATION_A, isSystemAdmin: false };
    expect(decideUser(learner, self, 'update')).toEqual({ allowed: false, visible: true });
    expectAppError(() => requireUserAction(learner, self, 'update'), 'forbidden');
  });

  it('answers a non-admin viewing their own account through /api/users with not_found (it is read through /api/me)', () => {
    const self = { userId: creator.userId, organizationId: ORGANIZATION_A, isSystemAdmin: false };
    expect(decideUser(creator, self, 'view')).toEqual({ allowed: false, visible: false });
    expectAppError(() => requireUserAction(creator, self, 'view'), 'not_found');
  });
});

describe('requireUserAdministration', () => {
  it('gives a system admin every user', () => {
    expect(requireUserAdministration(IDENTITIES['system admin'])).toEqual({ kind: 'all' });
  });

  it('gives an organization admin the users of their own organization, without its system admins', () => {
    expect(requireUserAdministration(IDENTITIES['org admin of another organization'])).toEqual({
      kind: 'organization',
      organizationId: ORGANIZATION_B,
      systemAdmins: 'excluded',
    });
  });

  it('includes in a scope exactly the accounts decideUser lets its holder view', () => {
    const scope = requireUserAdministration(IDENTITIES['org admin of another organization']);
    const targets = [
      { userId: 900, organizationId: ORGANIZATION_B, isSystemAdmin: false },
      { userId: 901, organizationId: ORGANIZATION_B, isSystemAdmin: true },
      { userId: 902, organizationId: ORGANIZATION_A, isSystemAdmin: false },
    ];
    for (const target of targets) {
      expect(userScopeIncludes(scope, target)).toBe(decideUser(IDENTITIES['org admin of another organization'], target, 'view').allowed);
    }
    expect(targets.map((target) => userScopeIncludes(scope, target))).toEqual([true, false, false]);
  });

  it.each(['owner', 'learner of the organization'] as const)('refuses the %s with forbidden', (identityName) => {
    expectAppError(() => requireUserAdministration(IDENTITIES[identityName]), 'forbidden');
  });
});

describe('requireUserCreation', () => {
  const organizationAAdmin = IDENTITIES['org admin of the assistant organization'];

  it('lets a system admin create a system admin in another organization', () => {
    expect(() => requireUserCreation(IDENTITIES['system admin'], { organizationId: ORGANIZATION_B, isSystemAdmin: true })).not.toThrow();
  });

  it('lets an organization admin create a user in their own organization', () => {
    expect(() => requireUserCreation(organizationAAdmin, { organizationId: ORGANIZATION_A, isSystemAdmin: false })).not.toThrow();
  });

  it('refuses an organization admin creating a user in another organization with forbidden', () => {
    const error = expectAppError(
      () => requireUserCreation(organizationAAdmin, { organizationId: ORGANIZATION_B, isSystemAdmin: false }),
      'forbidden',
    );
    expect(error.message).toMatch(/own organization/);
  });

  it('refuses an organization admin creating a system admin with forbidden', () => {
    const error = expectAppError(
      () => requireUserCreation(organizationAAdmin, { organizationId: ORGANIZATION_A, isSystemAdmin: true }),
      'forbidden',
    );
    expect(error.message).toMatch(/system administrators/);
  });

  it.each(['owner', 'learner of the organization'] as const)('refuses the %s creating any user with forbidden', (identityName) => {
    expectAppError(
      () => requireUserCreation(IDENTITIES[identityName], { organizationId: ORGANIZATION_A, isSystemAdmin: false }),
      'forbidden',
    );
  });
});

describe('requireSystemAdminGrant', () => {
  it('lets only a system admin grant system administration', () => {
    expect(() => requireSystemAdminGrant(IDENTITIES['system admin'])).not.toThrow();
    expectAppError(() => requireSystemAdminGrant(IDENTITIES['org admin of the assistant organization']), 'forbidden');
  });
});

describe('requireApiKeyOwner', () => {
  it('lets a user reach their own API key', () => {
    expect(() => requireApiKeyOwner(IDENTITIES.owner, OWNER_ID)).not.toThrow();
  });

  it.each(['system admin', 'org admin of the assistant organization', 'learner of the organization'] as const)(
    "hides another user's API key from the %s with not_found",
    (identityName) => {
      const error = expectAppError(() => requireApiKeyOwner(IDENTITIES[identityName], OWNER_ID), 'not_found');
      expect(error.message).toBe('API key not found.');
    },
  );
});

describe('requireApiKeyCreation', () => {
  const ownKey = (who: Identity) => ({ ownerId: who.userId, trustedFrontEnd: false, learnersCreateApiKeys: true });

  it.each(Object.keys(IDENTITIES) as IdentityName[])('lets the %s create an ordinary key of their own', (identityName) => {
    expect(() => requireApiKeyCreation(IDENTITIES[identityName], ownKey(IDENTITIES[identityName]))).not.toThrow();
  });

  it.each((Object.keys(IDENTITIES) as IdentityName[]).filter((name) => name !== 'system admin'))(
    'refuses a trusted front-end key, or a key for another user, to the %s (forbidden, naming the field)',
    (identityName) => {
      const caller = IDENTITIES[identityName];
      const trusted = expectAppError(() => requireApiKeyCreation(caller, { ...ownKey(caller), trustedFrontEnd: true }), 'forbidden');
      expect(trusted.param).toBe('trusted_front_end');
      const forAnother = expectAppError(() => requireApiKeyCreation(caller, { ...ownKey(caller), ownerId: 999 }), 'forbidden');
      expect(forAnother.param).toBe('user_id');
    },
  );

  it('lets a system admin create a trusted front-end key for another user, even where learners may not create keys', () => {
    expect(() =>
      requireApiKeyCreation(IDENTITIES['system admin'], { ownerId: 999, trustedFrontEnd: true, learnersCreateApiKeys: false }),
    ).not.toThrow();
  });

  it('stops learners, and only learners, when their organization turned key creation off', () => {
    const closed = (who: Identity) => ({ ...ownKey(who), learnersCreateApiKeys: false });
    expectAppError(
      () => requireApiKeyCreation(IDENTITIES['learner of the organization'], closed(IDENTITIES['learner of the organization'])),
      'forbidden',
    );
    for (const name of ['owner', 'org admin of the assistant organization', 'system admin'] as const) {
      expect(() => requireApiKeyCreation(IDENTITIES[name], closed(IDENTITIES[name]))).not.toThrow();
    }
  });
});

describe('mayNameForwardedUser', () => {
  const withCredential = (credential: Identity['credential'], trustedFrontEnd: boolean): Identity => ({
    ...IDENTITIES['learner of the organization'],
    credential,
    trustedFrontEnd,
  });

  it('believes the forwarded user only for a trusted front-end API key while the server trusts the header', () => {
    expect(mayNameForwardedUser(withCredential('api_key', true), true)).toBe(true);
    expect(mayNameForwardedUser(withCredential('api_key', true), false)).toBe(false);
    expect(mayNameForwardedUser(withCredential('api_key', false), true)).toBe(false);
    expect(mayNameForwardedUser(withCredential('session', true), true)).toBe(false);
    expect(mayNameForwardedUser(withCredential('assistant_owner', true), true)).toBe(false);
    expect(mayNameForwardedUser({ ...IDENTITIES['system admin'], credential: 'api_key' }, true)).toBe(false);
  });
});

describe('rubricNamespace', () => {
  it("looks in the caller's organization, or the one they name", () => {
    expect(rubricNamespace(IDENTITIES.owner, undefined)).toEqual({ organizationId: ORGANIZATION_A, searchEveryOrganization: false });
    expect(rubricNamespace(IDENTITIES.owner, ORGANIZATION_B)).toEqual({ organizationId: ORGANIZATION_B, searchEveryOrganization: false });
  });

  it('lets only a system admin who names no organization fall back to every organization', () => {
    expect(rubricNamespace(IDENTITIES['system admin'], undefined)).toEqual({
      organizationId: ORGANIZATION_A,
      searchEveryOrganization: true,
    });
    expect(rubricNamespace(IDENTITIES['system admin'], ORGANIZATION_B)).toEqual({
      organizationId: ORGANIZATION_B,
      searchEveryOrganization: false,
    });
    expect(rubricNamespace(IDENTITIES['org admin of another organization'], undefined).searchEveryOrganization).toBe(false);
  });
});

describe('userAdministrationScope', () => {
  it('gives system admins everyone, organization admins their organization without system admins, and others nothing', () => {
    expect(userAdministrationScope(IDENTITIES['system admin'])).toEqual({ kind: 'all' });
    expect(userAdministrationScope(IDENTITIES['org admin of the assistant organization'])).toEqual({
      kind: 'organization',
      organizationId: ORGANIZATION_A,
      systemAdmins: 'excluded',
    });
    expect(userAdministrationScope(IDENTITIES.owner)).toBeUndefined();
    expect(userAdministrationScope(IDENTITIES['learner of the organization'])).toBeUndefined();
  });

  it('includes a member of the organization but neither a system admin in it nor a member of another', () => {
    const scope = userAdministrationScope(IDENTITIES['org admin of the assistant organization'])!;
    expect(userScopeIncludes(scope, { userId: 50, organizationId: ORGANIZATION_A, isSystemAdmin: false })).toBe(true);
    expect(userScopeIncludes(scope, { userId: 51, organizationId: ORGANIZATION_A, isSystemAdmin: true })).toBe(false);
    expect(userScopeIncludes(scope, { userId: 52, organizationId: ORGANIZATION_B, isSystemAdmin: false })).toBe(false);
    expect(userScopeIncludes({ kind: 'all' }, { userId: 51, organizationId: ORGANIZATION_A, isSystemAdmin: true })).toBe(true);
  });
});

describe('usageScope', () => {
  it.each([
    ['system admin', undefined, { kind: 'all' }],
    ['system admin', ORGANIZATION_B, { kind: 'organization', organizationId: ORGANIZATION_B }],
    ['org admin of the assistant organization', undefined, { kind: 'organization', organizationId: ORGANIZATION_A }],
    ['org admin of the assistant organization', ORGANIZATION_A, { kind: 'organization', organizationId: ORGANIZATION_A }],
    ['org admin of another organization', undefined, { kind: 'organization', organizationId: ORGANIZATION_B }],
    ['owner', undefined, { kind: 'own', userId: OWNER_ID }],
    ['learner of the organization', ORGANIZATION_A, { kind: 'own', userId: 21 }],
  ] as const)('gives the %s naming organization %s the scope %j', (identityName, organizationId, scope) => {
    expect(usageScope(IDENTITIES[identityName], organizationId)).toEqual(scope);
  });

  it.each(['org admin of the assistant organization', 'owner', 'learner of the organization'] as const)(
    'answers the %s naming another organization as if it did not exist',
    (identityName) => {
      expect(() => usageScope(IDENTITIES[identityName], ORGANIZATION_B)).toThrow(expect.objectContaining({ code: 'not_found' }));
    },
  );
});

describe('requireAssistantTesting', () => {
  const managers: IdentityName[] = ['system admin', 'org admin of the assistant organization', 'owner'];

  it.each(Object.keys(IDENTITIES) as IdentityName[])(
    'lets the %s at the tests of a shared, published assistant only if they manage it',
    (identityName) => {
      const attempt = () => requireAssistantTesting(IDENTITIES[identityName], { ...BASE_FACTS, published: true, sharedWithCaller: true });
      if (managers.includes(identityName)) expect(attempt).not.toThrow();
      else expect(attempt).toThrow(expect.objectContaining({ code: 'not_found' }));
    },
  );

  it('hides the tests of a deleted assistant from everyone, its owner too', () => {
    expect(() => requireAssistantTesting(IDENTITIES.owner, STATES.deleted)).toThrow(expect.objectContaining({ code: 'not_found' }));
  });
});

describe('requireAssistantInsights', () => {
  it('lets whoever manages the assistant see its insights, refuses who can see it (403) and hides it from everyone else (404)', () => {
    const outcomes: Record<string, string> = {};
    for (const [name, caller] of Object.entries(IDENTITIES))
      for (const [stateName, facts] of Object.entries(STATES)) {
        const error = thrownBy(() => requireAssistantInsights(caller, facts));
        outcomes[`${name}/${stateName}`] = error instanceof AppError ? error.code : 'allowed';
      }
    expect(outcomes).toMatchObject({
      'owner/private': 'allowed',
      'org admin of the assistant organization/private': 'allowed',
      'system admin/private': 'allowed',
      'learner it is shared with/shared': 'forbidden',
      'other creator of the organization/published': 'forbidden',
      'learner of the organization/published': 'forbidden',
      'other creator of the organization/private': 'not_found',
      'org admin of another organization/published': 'not_found',
      'learner of another organization/shared': 'forbidden',
      'learner of another organization/published': 'not_found',
    });
  });
});
