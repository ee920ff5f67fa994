// Proves the permission module's rules for everything but the assistant matrix (permissions.test.ts has that): files, rubrics, knowledge bases, traces, organization settings, assistants as tools, the list scopes and creation rights, and the exact refusal each gives (404 for the unseen, 403 with a message naming the rule for the seen), with a system admin whose own organization role is learner so that system administration, not the role, is what grants.
import { describe, expect, it } from 'vitest';
import { AppError } from '../errors/app-error.js';
import type { Identity } from './identity.js';
import {
  assistantListScope,
  decideAssistant,
  decideAssistantTool,
  decideFile,
  decideKnowledgeBase,
  decideRubric,
  fileListScope,
  knowledgeBaseListScope,
  requireApiKeyCreation,
  requireFileAction,
  requireFileUpload,
  requireKnowledgeBaseAction,
  requireOrganizationAdministration,
  requireRubricAction,
  requireRubricCreation,
  requireSystemAdminGrant,
  requireTraceAccess,
  requireUserAdministration,
  rubricListScope,
  rubricNamespace,
  type AssistantFacts,
  type FileAction,
  type KnowledgeBaseAction,
  type RubricAction,
} from './permissions.js';

const ORGANIZATION_A = 1;
const ORGANIZATION_B = 2;
const OWNER_ID = 10;

function identity(userId: number, organizationId: number, role: Identity['role'], isSystemAdmin = false): Identity {
  return {
    userId,
    organizationId,
    role,
    isSystemAdmin,
    email: `user${userId}@merino.test`,
    name: `User ${userId}`,
    credential: 'session',
    credentialId: 1,
    trustedFrontEnd: false,
  };
}

const CALLERS = {
  // A learner in organization B by role: only system administration can explain what it may do in A.
  'system admin': identity(1, ORGANIZATION_B, 'learner', true),
  'admin of A': identity(2, ORGANIZATION_A, 'admin'),
  'admin of B': identity(3, ORGANIZATION_B, 'admin'),
  owner: identity(OWNER_ID, ORGANIZATION_A, 'creator'),
  'creator of A': identity(11, ORGANIZATION_A, 'creator'),
  'learner of A': identity(21, ORGANIZATION_A, 'learner'),
  'learner of B': identity(31, ORGANIZATION_B, 'learner'),
} as const satisfies Record<string, Identity>;
type CallerName = keyof typeof CALLERS;
const CALLER_NAMES = Object.keys(CALLERS) as CallerName[];

/** Runs `action`, expecting an AppError, and returns it. */
function refusal(action: () => void): AppError {
  try {
    action();
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    return error as AppError;
  }
  throw new Error('expected a refusal, but the action was allowed');
}

const MANAGERS: readonly CallerName[] = ['system admin', 'admin of A', 'owner'];

describe('files', () => {
  const FACTS = { ownerId: OWNER_ID, organizationId: ORGANIZATION_A, deleted: false };
  const ACTIONS: readonly FileAction[] = ['read', 'delete'];

  it.each(CALLER_NAMES.flatMap((caller) => ACTIONS.map((action) => ({ caller, action, allowed: MANAGERS.includes(caller) }))))(
    'lets $caller $action a file of the owner in A: $allowed, and hides it otherwise',
    ({ caller, action, allowed }) => {
      expect(decideFile(CALLERS[caller], FACTS, action)).toEqual(allowed ? { allowed: true } : { allowed: false, visible: false });
      if (allowed) expect(() => requireFileAction(CALLERS[caller], FACTS, action)).not.toThrow();
      else
        expect(refusal(() => requireFileAction(CALLERS[caller], FACTS, action, 'File "10/notes.txt"'))).toMatchObject({
          code: 'not_found',
          message: 'File "10/notes.txt" not found.',
        });
    },
  );

  it('hides a deleted file from everyone, its owner and the system admin included, naming it "File" by default', () => {
    for (const caller of CALLER_NAMES)
      expect(decideFile(CALLERS[caller], { ...FACTS, deleted: true }, 'read')).toEqual({ allowed: false, visible: false });
    expect(refusal(() => requireFileAction(CALLERS.owner, { ...FACTS, deleted: true }, 'read')).message).toBe('File not found.');
  });

  it('lists everything for a system admin, the organization for its admins, and their own files for the rest', () => {
    expect(fileListScope(CALLERS['system admin'])).toEqual({ kind: 'all' });
    expect(fileListScope(CALLERS['admin of B'])).toEqual({ kind: 'organization', organizationId: ORGANIZATION_B });
    expect(fileListScope(CALLERS['creator of A'])).toEqual({ kind: 'owner', userId: 11 });
    expect(fileListScope(CALLERS['learner of A'])).toEqual({ kind: 'owner', userId: 21 });
  });

  it('lets whoever may build assistants upload, and tells a learner why not', () => {
    for (const caller of ['system admin', 'admin of A', 'owner', 'creator of A'] as const)
      expect(() => requireFileUpload(CALLERS[caller])).not.toThrow();
    expect(refusal(() => requireFileUpload(CALLERS['learner of A']))).toMatchObject({
      code: 'forbidden',
      message: 'Learners cannot upload files; ask an administrator for the creator role.',
    });
  });
});

describe('rubrics', () => {
  const ACTIONS: readonly RubricAction[] = ['read', 'export', 'update', 'delete'];
  const PRIVATE = { ownerId: OWNER_ID, organizationId: ORGANIZATION_A, visibility: 'private' as const, deleted: false };
  const SHARED = { ...PRIVATE, visibility: 'organization' as const };
  const MEMBERS_OF_A: readonly CallerName[] = ['creator of A', 'learner of A'];

  it.each(CALLER_NAMES.flatMap((caller) => ACTIONS.map((action) => ({ caller, action }))))(
    'decides $action of a private and a shared rubric for $caller',
    ({ caller, action }) => {
      const who = CALLERS[caller];
      if (MANAGERS.includes(caller)) {
        expect(decideRubric(who, PRIVATE, action)).toEqual({ allowed: true });
        expect(decideRubric(who, SHARED, action)).toEqual({ allowed: true });
        return;
      }
      expect(decideRubric(who, PRIVATE, action)).toEqual({ allowed: false, visible: false });
      const member = MEMBERS_OF_A.includes(caller);
      const memberMay = member && (action === 'read' || action === 'export');
      expect(decideRubric(who, SHARED, action)).toEqual(memberMay ? { allowed: true } : { allowed: false, visible: member });
    },
  );

  it('answers 403 to a member changing a shared rubric, and 404 naming the rubric to anyone who may not see it', () => {
    expect(refusal(() => requireRubricAction(CALLERS['learner of A'], SHARED, 'update')).code).toBe('forbidden');
    expect(refusal(() => requireRubricAction(CALLERS['learner of B'], SHARED, 'read', 'Rubric "essay"'))).toMatchObject({
      code: 'not_found',
      message: 'Rubric "essay" not found.',
    });
    expect(refusal(() => requireRubricAction(CALLERS['creator of A'], PRIVATE, 'read')).message).toBe('Rubric not found.');
    expect(() => requireRubricAction(CALLERS['learner of A'], SHARED, 'export')).not.toThrow();
  });

  it('hides a deleted rubric from everyone', () => {
    for (const caller of CALLER_NAMES)
      expect(decideRubric(CALLERS[caller], { ...SHARED, deleted: true }, 'read')).toEqual({ allowed: false, visible: false });
  });

  it('lists the caller’s own rubrics for "mine", and the organization’s by role for "organization"', () => {
    expect(rubricListScope(CALLERS['admin of A'], 'mine')).toEqual({ kind: 'owner', userId: 2 });
    expect(rubricListScope(CALLERS['system admin'], 'organization')).toEqual({ kind: 'organization', organizationId: ORGANIZATION_B });
    expect(rubricListScope(CALLERS['admin of A'], 'organization')).toEqual({ kind: 'organization', organizationId: ORGANIZATION_A });
    expect(rubricListScope(CALLERS['creator of A'], 'organization')).toEqual({
      kind: 'organization_member',
      organizationId: ORGANIZATION_A,
      userId: 11,
    });
  });

  it('looks rubric ids up in the named or the own organization, and across organizations only for a system admin who names none', () => {
    expect(rubricNamespace(CALLERS['system admin'], undefined)).toEqual({ organizationId: ORGANIZATION_B, searchEveryOrganization: true });
    expect(rubricNamespace(CALLERS['system admin'], ORGANIZATION_A)).toEqual({
      organizationId: ORGANIZATION_A,
      searchEveryOrganization: false,
    });
    expect(rubricNamespace(CALLERS['admin of A'], undefined)).toEqual({ organizationId: ORGANIZATION_A, searchEveryOrganization: false });
    expect(rubricNamespace(CALLERS['learner of A'], ORGANIZATION_B)).toEqual({
      organizationId: ORGANIZATION_B,
      searchEveryOrganization: false,
    });
  });

  it('lets whoever may build assistants write rubrics, and tells a learner why not', () => {
    for (const caller of ['system admin', 'admin of B', 'creator of A'] as const)
      expect(() => requireRubricCreation(CALLERS[caller])).not.toThrow();
    expect(refusal(() => requireRubricCreation(CALLERS['learner of A']))).toMatchObject({
      code: 'forbidden',
      message: 'Learners cannot create rubrics; ask an administrator for the creator role.',
    });
  });
});

describe('knowledge bases', () => {
  const ACTIONS: readonly KnowledgeBaseAction[] = ['view', 'query', 'update', 'delete'];
  const PRIVATE = { ownerId: OWNER_ID, organizationId: ORGANIZATION_A, sharedWithOrganization: false, deleted: false };
  const SHARED = { ...PRIVATE, sharedWithOrganization: true };
  const MEMBERS_OF_A: readonly CallerName[] = ['creator of A', 'learner of A'];

  it.each(CALLER_NAMES.flatMap((caller) => ACTIONS.map((action) => ({ caller, action }))))(
    'decides $action of a private and a shared knowledge base for $caller',
    ({ caller, action }) => {
      const who = CALLERS[caller];
      if (MANAGERS.includes(caller)) {
        expect(decideKnowledgeBase(who, PRIVATE, action)).toEqual({ allowed: true });
        expect(decideKnowledgeBase(who, SHARED, action)).toEqual({ allowed: true });
        return;
      }
      expect(decideKnowledgeBase(who, PRIVATE, action)).toEqual({ allowed: false, visible: false });
      const member = MEMBERS_OF_A.includes(caller);
      const memberMay = member && (action === 'view' || action === 'query');
      expect(decideKnowledgeBase(who, SHARED, action)).toEqual(memberMay ? { allowed: true } : { allowed: false, visible: member });
    },
  );

  it('answers 403 to a member changing a shared knowledge base and 404 to an outsider, naming it', () => {
    expect(refusal(() => requireKnowledgeBaseAction(CALLERS['learner of A'], SHARED, 'delete')).code).toBe('forbidden');
    expect(refusal(() => requireKnowledgeBaseAction(CALLERS['admin of B'], SHARED, 'view'))).toMatchObject({
      code: 'not_found',
      message: 'Knowledge base not found.',
    });
    expect(() => requireKnowledgeBaseAction(CALLERS['learner of A'], SHARED, 'query')).not.toThrow();
  });

  it('hides a deleted knowledge base from everyone', () => {
    for (const caller of CALLER_NAMES)
      expect(decideKnowledgeBase(CALLERS[caller], { ...SHARED, deleted: true }, 'view')).toEqual({ allowed: false, visible: false });
  });

  it('lists knowledge bases with the same scopes as assistants', () => {
    for (const caller of CALLER_NAMES) expect(knowledgeBaseListScope(CALLERS[caller])).toEqual(assistantListScope(CALLERS[caller]));
    expect(knowledgeBaseListScope(CALLERS['admin of B'])).toEqual({ kind: 'organization', organizationId: ORGANIZATION_B });
  });
});

describe('traces', () => {
  const TRACE = { assistantOwnerId: OWNER_ID, organizationId: ORGANIZATION_A };

  it.each(CALLER_NAMES.map((caller) => ({ caller, allowed: MANAGERS.includes(caller) })))(
    'lets $caller read a trace of the owner’s assistant in A: $allowed',
    ({ caller, allowed }) => {
      if (allowed) expect(() => requireTraceAccess(CALLERS[caller], TRACE)).not.toThrow();
      else
        expect(refusal(() => requireTraceAccess(CALLERS[caller], TRACE))).toMatchObject({ code: 'not_found', message: 'Trace not found.' });
    },
  );
});

describe('organization settings', () => {
  it('lets system admins and the organization’s admins manage them', () => {
    expect(() => requireOrganizationAdministration(CALLERS['system admin'], ORGANIZATION_A)).not.toThrow();
    expect(() => requireOrganizationAdministration(CALLERS['admin of A'], ORGANIZATION_A)).not.toThrow();
  });

  it('refuses a member of the organization with 403 and a reason, and hides it from everyone else', () => {
    expect(refusal(() => requireOrganizationAdministration(CALLERS['creator of A'], ORGANIZATION_A))).toMatchObject({
      code: 'forbidden',
      message: "Only the organization's admins can manage its settings.",
    });
    expect(refusal(() => requireOrganizationAdministration(CALLERS['admin of B'], ORGANIZATION_A))).toMatchObject({
      code: 'not_found',
      message: 'Organization not found.',
    });
    expect(refusal(() => requireOrganizationAdministration(CALLERS['learner of B'], ORGANIZATION_A)).code).toBe('not_found');
  });
});

describe('assistants as tools', () => {
  const TARGET = {
    ownerId: OWNER_ID,
    organizationId: ORGANIZATION_A,
    published: false,
    deleted: false,
    sharedWithCaller: false,
    id: 5,
    orchestrator: false,
  };

  it('lets an owner use an assistant they may chat with', () => {
    expect(decideAssistantTool(CALLERS.owner, TARGET, 9)).toBeUndefined();
    expect(decideAssistantTool(CALLERS['creator of A'], { ...TARGET, published: true }, 9)).toBeUndefined();
  });

  it('refuses a missing or deleted target, the orchestrator itself, one the owner may not chat with, and another orchestrator', () => {
    expect(decideAssistantTool(CALLERS.owner, undefined, 9)).toBe('not_found');
    expect(decideAssistantTool(CALLERS.owner, { ...TARGET, deleted: true }, 9)).toBe('not_found');
    expect(decideAssistantTool(CALLERS.owner, TARGET, 5)).toBe('self');
    expect(decideAssistantTool(CALLERS['creator of A'], TARGET, 9)).toBe('not_permitted');
    expect(decideAssistantTool(CALLERS.owner, { ...TARGET, orchestrator: true }, 9)).toBe('orchestrator');
  });
});

describe('system administration, not the organization role, grants', () => {
  const facts: AssistantFacts = {
    ownerId: OWNER_ID,
    organizationId: ORGANIZATION_A,
    published: false,
    deleted: false,
    sharedWithCaller: false,
  };

  it('lets a system admin who is a learner of another organization manage a private assistant of A', () => {
    expect(decideAssistant(CALLERS['system admin'], facts, 'update')).toEqual({ allowed: true });
    expect(decideAssistant(CALLERS['system admin'], facts, 'chat')).toEqual({ allowed: true });
  });

  it('lets such a system admin administer users, grant system administration and create any key', () => {
    expect(requireUserAdministration(CALLERS['system admin'])).toEqual({ kind: 'all' });
    expect(() => requireSystemAdminGrant(CALLERS['system admin'])).not.toThrow();
    expect(() =>
      requireApiKeyCreation(CALLERS['system admin'], { ownerId: 99, trustedFrontEnd: true, learnersCreateApiKeys: false }),
    ).not.toThrow();
  });
});

describe('the reasons refusals give', () => {
  it('says who may manage users, grant system administration and create which keys', () => {
    expect(refusal(() => requireUserAdministration(CALLERS['creator of A']))).toMatchObject({
      code: 'forbidden',
      message: 'Only administrators can manage users.',
    });
    expect(refusal(() => requireSystemAdminGrant(CALLERS['admin of A']))).toMatchObject({
      code: 'forbidden',
      message: 'Only system administrators can grant system administration.',
    });
    expect(
      refusal(() => requireApiKeyCreation(CALLERS['admin of A'], { ownerId: 2, trustedFrontEnd: true, learnersCreateApiKeys: true })),
    ).toMatchObject({
      code: 'forbidden',
      message: 'Only system administrators can create trusted front-end keys.',
      param: 'trusted_front_end',
    });
    expect(
      refusal(() => requireApiKeyCreation(CALLERS['admin of A'], { ownerId: 99, trustedFrontEnd: false, learnersCreateApiKeys: true })),
    ).toMatchObject({
      code: 'forbidden',
      message: 'Only system administrators can create keys for another user.',
      param: 'user_id',
    });
    expect(
      refusal(() => requireApiKeyCreation(CALLERS['learner of A'], { ownerId: 21, trustedFrontEnd: false, learnersCreateApiKeys: false })),
    ).toMatchObject({
      code: 'forbidden',
      message: 'Your organization does not let learners create API keys; ask an administrator.',
    });
  });
});
