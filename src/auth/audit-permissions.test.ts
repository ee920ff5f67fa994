// Proves the permission module's rules for the audit log: system admins read every entry or one organization's, an organization's admins only their own organization's, everyone else nothing; and an organization admin's user list never reaches another organization.
import { describe, expect, it } from 'vitest';
import { AppError } from '../errors/app-error.js';
import type { Identity } from './identity.js';
import { auditScope, requireUserListOrganization, userAdministrationScope } from './permissions.js';

const ORGANIZATION_A = 1;
const ORGANIZATION_B = 2;

function identity(role: Identity['role'], isSystemAdmin = false): Identity {
  return {
    userId: 7,
    email: 'someone@merino.test',
    name: '',
    organizationId: ORGANIZATION_A,
    role,
    isSystemAdmin,
    credential: 'session',
    credentialId: 1,
    trustedFrontEnd: false,
    mustChangePassword: false,
  };
}

function refusal(run: () => unknown): string | undefined {
  try {
    run();
    return undefined;
  } catch (error) {
    return error instanceof AppError ? error.code : 'not an AppError';
  }
}

describe('audit log permissions', () => {
  it('gives system admins every entry, or the organization they name', () => {
    expect(auditScope(identity('learner', true), undefined)).toEqual({ kind: 'all' });
    expect(auditScope(identity('learner', true), ORGANIZATION_B)).toEqual({ kind: 'organization', organizationId: ORGANIZATION_B });
  });

  it("gives an organization's admins their own organization only, and hides the others", () => {
    expect(auditScope(identity('admin'), undefined)).toEqual({ kind: 'organization', organizationId: ORGANIZATION_A });
    expect(auditScope(identity('admin'), ORGANIZATION_A)).toEqual({ kind: 'organization', organizationId: ORGANIZATION_A });
    expect(refusal(() => auditScope(identity('admin'), ORGANIZATION_B))).toBe('not_found');
  });

  it('refuses creators and learners', () => {
    expect(refusal(() => auditScope(identity('creator'), undefined))).toBe('forbidden');
    expect(refusal(() => auditScope(identity('learner'), ORGANIZATION_A))).toBe('forbidden');
  });

  it("keeps an organization admin's user list to their organization", () => {
    const adminScope = userAdministrationScope(identity('admin'))!;
    expect(refusal(() => requireUserListOrganization(adminScope, ORGANIZATION_A))).toBeUndefined();
    expect(refusal(() => requireUserListOrganization(adminScope, ORGANIZATION_B))).toBe('not_found');
    expect(refusal(() => requireUserListOrganization({ kind: 'all' }, ORGANIZATION_B))).toBeUndefined();
  });
});
