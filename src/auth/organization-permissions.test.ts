// Proves the permission module's rules for organizations: who may see and manage them, who may move people, who a suspension locks out, and that a pending one-time password refuses everything the HTTP layer does not let through.
import { describe, expect, it } from 'vitest';
import { AppError } from '../errors/app-error.js';
import type { Identity } from './identity.js';
import { isLockedOutBySuspension, requireOrganizationDirectoryAction, requireOwnPasswordChosen, requireUserMove } from './permissions.js';

const ORGANIZATION_A = 1;
const ORGANIZATION_B = 2;

function identity(role: Identity['role'], isSystemAdmin = false, mustChangePassword = false): Identity {
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
    mustChangePassword,
  };
}

function refusal(run: () => void): string | undefined {
  try {
    run();
    return undefined;
  } catch (error) {
    return error instanceof AppError ? error.code : 'not an AppError';
  }
}

describe('organization permissions', () => {
  it('lets system admins do everything, and organization admins only read their own organization', () => {
    const systemAdmin = identity('learner', true);
    const admin = identity('admin');
    const learner = identity('learner');
    expect(refusal(() => requireOrganizationDirectoryAction(systemAdmin, undefined, 'manage'))).toBeUndefined();
    expect(refusal(() => requireOrganizationDirectoryAction(systemAdmin, ORGANIZATION_B, 'manage'))).toBeUndefined();
    expect(refusal(() => requireOrganizationDirectoryAction(admin, undefined, 'view'))).toBe('forbidden');
    expect(refusal(() => requireOrganizationDirectoryAction(admin, ORGANIZATION_A, 'view'))).toBeUndefined();
    expect(refusal(() => requireOrganizationDirectoryAction(admin, ORGANIZATION_A, 'manage'))).toBe('forbidden');
    expect(refusal(() => requireOrganizationDirectoryAction(admin, ORGANIZATION_B, 'view'))).toBe('not_found');
    expect(refusal(() => requireOrganizationDirectoryAction(learner, ORGANIZATION_A, 'view'))).toBe('forbidden');
    expect(refusal(() => requireOrganizationDirectoryAction(learner, ORGANIZATION_B, 'view'))).toBe('not_found');
  });

  it('lets only system admins move people between organizations', () => {
    expect(refusal(() => requireUserMove(identity('learner', true)))).toBeUndefined();
    expect(refusal(() => requireUserMove(identity('admin')))).toBe('forbidden');
  });

  it("locks a suspended organization's members out, never system admins", () => {
    expect(isLockedOutBySuspension({ isSystemAdmin: false, organizationStatus: 'suspended' })).toBe(true);
    expect(isLockedOutBySuspension({ isSystemAdmin: true, organizationStatus: 'suspended' })).toBe(false);
    expect(isLockedOutBySuspension({ isSystemAdmin: false, organizationStatus: 'active' })).toBe(false);
  });

  it('refuses whoever holds a one-time password until they choose their own', () => {
    expect(refusal(() => requireOwnPasswordChosen(identity('admin', true, true)))).toBe('password_change_required');
    expect(refusal(() => requireOwnPasswordChosen(identity('admin')))).toBeUndefined();
  });
});
