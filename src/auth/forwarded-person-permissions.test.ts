// Proves whom a trusted front end's request may run as (decideForwardedPerson) and whose access
// opens a signed source link (sourceLinkReader): members of the key's organization only, never a
// system admin or another organization's person, and new learners only where the organization allows.
import { describe, expect, it } from 'vitest';
import { AppError } from '../errors/app-error.js';
import type { Identity } from './identity.js';
import { decideForwardedPerson, sourceLinkReader } from './permissions.js';

const FRONT_END: Identity = {
  userId: 5,
  email: 'open-webui@school.test',
  name: 'Open WebUI',
  organizationId: 2,
  role: 'learner',
  isSystemAdmin: false,
  credential: 'api_key',
  credentialId: 9,
  trustedFrontEnd: true,
};

function codeOf(run: () => unknown): string | undefined {
  try {
    run();
    return undefined;
  } catch (error) {
    return error instanceof AppError ? error.code : 'not an AppError';
  }
}

const member = { organizationId: 2, isSystemAdmin: false, disabled: false };

describe('decideForwardedPerson', () => {
  it('acts as a member of the key organization, whatever the organization setting', () => {
    expect(decideForwardedPerson(FRONT_END, member, false)).toBe('act_as');
    expect(decideForwardedPerson(FRONT_END, member, true)).toBe('act_as');
  });

  it('creates a learner for an unknown email only when the organization allows it', () => {
    expect(decideForwardedPerson(FRONT_END, undefined, true)).toBe('create_learner');
    expect(codeOf(() => decideForwardedPerson(FRONT_END, undefined, false))).toBe('forwarded_user_unknown');
  });

  it.each([
    ['a person of another organization', { ...member, organizationId: 3 }, 'forwarded_user_refused'],
    ['a system administrator, even of the same organization', { ...member, isSystemAdmin: true }, 'forwarded_user_refused'],
    ['a disabled account', { ...member, disabled: true }, 'account_disabled'],
  ])('refuses %s', (_name, person, code) => {
    expect(codeOf(() => decideForwardedPerson(FRONT_END, person, true))).toBe(code);
  });
});

describe('sourceLinkReader', () => {
  it('reads as the person the link names when they open it, and with the viewer’s own access otherwise', () => {
    expect(sourceLinkReader(FRONT_END, 5)).toBe('named_person');
    expect(sourceLinkReader(FRONT_END, 6)).toBe('viewer');
  });
});
