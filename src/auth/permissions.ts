/**
 * The one module that decides every access. Services ask it before they read or change anything,
 * and the store's list queries are built from the scopes it returns, so the rules live here only.
 *
 * Rules: system admins may do everything; an organization admin manages everything in their own
 * organization; an owner manages their own assistants; a user an assistant is shared with may
 * see its configuration, chat with it and export it; a published assistant may be used (seen as
 * a summary and chatted with) by every member of its organization. A chat is its owner's alone;
 * its assistant's managers read it only where its organization allows (assistantChatsScope).
 * Whoever may not even see an
 * object gets 404, so ids cannot be enumerated; whoever may see it but not change it gets 403.
 */
import { AppError } from '../errors/app-error.js';
import type { Identity } from './identity.js';
import type {
  AssistantListScope,
  AuditScope,
  ChatListScope,
  FileListScope,
  KnowledgeBaseListScope,
  RubricListScope,
  TemplateListScope,
  UsageScope,
  UserListScope,
} from '../store/list-scopes.js';

export type AssistantAction = 'view' | 'view_configuration' | 'chat' | 'update' | 'delete' | 'publish' | 'share' | 'export';

export interface AssistantFacts {
  ownerId: number;
  organizationId: number;
  published: boolean;
  deleted: boolean;
  sharedWithCaller: boolean;
}

export type Decision = { allowed: true } | { allowed: false; visible: boolean };

type AssistantRelation = 'manager' | 'shared' | 'member' | 'none';

const ACTIONS_BY_RELATION: Record<AssistantRelation, ReadonlySet<AssistantAction>> = {
  manager: new Set<AssistantAction>(['view', 'view_configuration', 'chat', 'update', 'delete', 'publish', 'share', 'export']),
  shared: new Set<AssistantAction>(['view', 'view_configuration', 'chat', 'export']),
  member: new Set<AssistantAction>(['view', 'chat']),
  none: new Set<AssistantAction>(),
};

function isOrganizationAdmin(identity: Identity, organizationId: number): boolean {
  return identity.role === 'admin' && identity.organizationId === organizationId;
}

function assistantRelation(identity: Identity, facts: AssistantFacts): AssistantRelation {
  if (facts.deleted) return 'none';
  if (identity.isSystemAdmin) return 'manager';
  if (facts.ownerId === identity.userId) return 'manager';
  if (isOrganizationAdmin(identity, facts.organizationId)) return 'manager';
  if (facts.sharedWithCaller) return 'shared';
  if (facts.published && facts.organizationId === identity.organizationId) return 'member';
  return 'none';
}

export function decideAssistant(identity: Identity, facts: AssistantFacts, action: AssistantAction): Decision {
  const relation = assistantRelation(identity, facts);
  if (ACTIONS_BY_RELATION[relation].has(action)) return { allowed: true };
  return { allowed: false, visible: relation !== 'none' };
}

/** Why an orchestrator's owner may not use an assistant as a tool, or undefined when they may. */
export type AssistantToolRefusal = 'self' | 'not_found' | 'not_permitted' | 'orchestrator';

/**
 * Using an assistant as a tool (DESIGN §1): the orchestrator owner must be allowed to chat with
 * the target (own it, have it shared, or see it published), and the target must not be an
 * orchestrator itself, so calls are never more than one level deep.
 */
export function decideAssistantTool(
  owner: Identity,
  target: (AssistantFacts & { id: number; orchestrator: boolean }) | undefined,
  orchestratorId: number,
): AssistantToolRefusal | undefined {
  if (target === undefined || target.deleted) return 'not_found';
  if (target.id === orchestratorId) return 'self';
  if (!decideAssistant(owner, target, 'chat').allowed) return 'not_permitted';
  if (target.orchestrator) return 'orchestrator';
  return undefined;
}

export function requireDecision(decision: Decision, subject: string): void {
  if (decision.allowed) return;
  if (!decision.visible) throw new AppError('not_found', `${subject} not found.`);
  throw new AppError('forbidden');
}

export function requireAssistantAction(identity: Identity, facts: AssistantFacts, action: AssistantAction): void {
  requireDecision(decideAssistant(identity, facts, action), 'Assistant');
}

export function assistantListScope(identity: Identity): AssistantListScope {
  if (identity.isSystemAdmin) return { kind: 'all' };
  if (identity.role === 'admin') return { kind: 'organization', organizationId: identity.organizationId };
  return { kind: 'member', organizationId: identity.organizationId, userId: identity.userId };
}

export function canCreateAssistants(identity: Identity): boolean {
  return identity.isSystemAdmin || identity.role === 'admin' || identity.role === 'creator';
}

/**
 * Whether the test connectors (bypass) are offered in model lists: to system admins, or to every
 * creator when the installation turns them on for everyone.
 */
export function mayListTestConnectors(identity: Identity, onForEveryone: boolean): boolean {
  return identity.isSystemAdmin || onForEveryone;
}

export function requireAssistantCreation(identity: Identity): void {
  if (!canCreateAssistants(identity)) {
    throw new AppError('forbidden', 'Learners cannot create assistants; ask an administrator for the creator role.');
  }
}

/**
 * Converting a classic assistant to multi-tool copies its configuration into a new assistant the
 * caller owns, so it needs what exporting and importing it would: seeing the configuration (who
 * may not gets 404 or 403 as for the assistant itself) and creating assistants.
 */
export function requireAssistantConversion(identity: Identity, facts: AssistantFacts): void {
  requireAssistantAction(identity, facts, 'view_configuration');
  requireAssistantCreation(identity);
}

export interface UserFacts {
  userId: number;
  organizationId: number;
  isSystemAdmin: boolean;
}

export type UserAction = 'view' | 'update';

/**
 * The accounts a caller administers: everyone for system admins; for an organization admin, the
 * members of their organization except system admins (whom only system admins manage); nobody for
 * anyone else. Lists are built from this scope and single reads are checked against it, so a list
 * never shows an account that reading it by id would hide, nor the reverse.
 */
export function userAdministrationScope(identity: Identity): UserListScope | undefined {
  if (identity.isSystemAdmin) return { kind: 'all' };
  if (identity.role === 'admin') return { kind: 'organization', organizationId: identity.organizationId, systemAdmins: 'excluded' };
  return undefined;
}

/** Whether `target` falls within `scope`: the predicate the store's WHERE clause for the scope must match. */
export function userScopeIncludes(scope: UserListScope, target: UserFacts): boolean {
  if (scope.kind === 'all') return true;
  return target.organizationId === scope.organizationId && !target.isSystemAdmin;
}

/** Decides access to another user's account (one's own account is read through /api/me). */
export function decideUser(identity: Identity, target: UserFacts, action: UserAction): Decision {
  const scope = userAdministrationScope(identity);
  if (scope !== undefined && userScopeIncludes(scope, target)) return { allowed: true };
  const visible = action !== 'view' && target.userId === identity.userId;
  return { allowed: false, visible };
}

export function requireUserAction(identity: Identity, target: UserFacts, action: UserAction): void {
  requireDecision(decideUser(identity, target, action), 'User');
}

/** Who may list and create users: admins only, each within what they administer. */
export function requireUserAdministration(identity: Identity): UserListScope {
  const scope = userAdministrationScope(identity);
  if (scope === undefined) throw new AppError('forbidden', 'Only administrators can manage users.');
  return scope;
}

/**
 * The organization a user list is narrowed to: any for system admins; for an organization admin
 * only their own (naming another is answered as if it did not exist).
 */
export function requireUserListOrganization(scope: UserListScope, organizationId: number | undefined): void {
  if (scope.kind === 'organization' && organizationId !== undefined && organizationId !== scope.organizationId)
    throw new AppError('not_found', 'Organization not found.', { param: 'organization_id' });
}

export interface NewUserFacts {
  organizationId: number;
  isSystemAdmin: boolean;
}

export function requireUserCreation(identity: Identity, target: NewUserFacts): void {
  const scope = requireUserAdministration(identity);
  if (scope.kind === 'all') return;
  if (target.isSystemAdmin) throw new AppError('forbidden', 'Only system administrators can create system administrators.');
  if (target.organizationId !== scope.organizationId) {
    throw new AppError('forbidden', 'Organization admins can only create users in their own organization.');
  }
}

export function requireSystemAdminGrant(identity: Identity): void {
  if (!identity.isSystemAdmin) throw new AppError('forbidden', 'Only system administrators can grant system administration.');
}

/** API keys belong to one user; nobody else may see or delete them, not even an admin. */
export function requireApiKeyOwner(identity: Identity, keyOwnerId: number): void {
  if (keyOwnerId !== identity.userId) throw new AppError('not_found', 'API key not found.');
}

export interface NewApiKeyFacts {
  /** The user the key will belong to. */
  ownerId: number;
  trustedFrontEnd: boolean;
  /** Answers end with a "Sources" block of signed links: a trusted front end's option only. */
  sourceLinks?: boolean;
  /** The organization setting of the caller's organization: may its learners create keys? */
  learnersCreateApiKeys: boolean;
}

/**
 * Who may create which API key. A trusted front-end key lets its holder name any user in a
 * forwarded-user header, so only system admins create one, and only they issue keys for another
 * account (a front end's service account). Learners create their own keys unless their
 * organization turned that off.
 */
export function requireApiKeyCreation(identity: Identity, key: NewApiKeyFacts): void {
  if (key.sourceLinks === true && !key.trustedFrontEnd)
    throw new AppError('invalid_body', '"source_links" is an option of trusted front-end keys only.', { param: 'source_links' });
  if (identity.isSystemAdmin) return;
  if (key.trustedFrontEnd)
    throw new AppError('forbidden', 'Only system administrators can create trusted front-end keys.', { param: 'trusted_front_end' });
  if (key.ownerId !== identity.userId)
    throw new AppError('forbidden', 'Only system administrators can create keys for another user.', { param: 'user_id' });
  if (identity.role === 'learner' && !key.learnersCreateApiKeys) {
    throw new AppError('forbidden', 'Your organization does not let learners create API keys; ask an administrator.');
  }
}

/**
 * Whether a request may name the person using a front end in a forwarded-user header
 * (`X-OpenWebUI-User-Email`): only when the server is configured to allow it AND the request
 * carries an API key a system admin marked as a trusted front end's. A session or any other key
 * (a learner's own, say) never speaks for someone else.
 */
export function mayNameForwardedUser(identity: Identity, serverTrustsForwardedHeaders: boolean): boolean {
  return serverTrustsForwardedHeaders && identity.credential === 'api_key' && identity.trustedFrontEnd;
}

/** What a forwarded-user decision needs to know about the person a front end names; undefined when nobody has the email. */
export interface ForwardedPersonFacts {
  organizationId: number;
  isSystemAdmin: boolean;
  disabled: boolean;
}

/**
 * Whom a trusted front end's request runs as (only once mayNameForwardedUser said it may name
 * someone): the member of the key's organization with that email, with their own role, never a
 * system administrator and never someone of another organization. An email nobody has becomes a
 * new learner of the key's organization only when that organization allows it.
 */
export function decideForwardedPerson(
  frontEnd: Identity,
  person: ForwardedPersonFacts | undefined,
  organizationCreatesLearners: boolean,
): 'act_as' | 'create_learner' {
  if (person === undefined) {
    if (organizationCreatesLearners) return 'create_learner';
    throw new AppError('forwarded_user_unknown', undefined, { param: 'x-openwebui-user-email' });
  }
  if (person.isSystemAdmin)
    throw new AppError('forwarded_user_refused', 'A front end may not act as a system administrator.', { param: 'x-openwebui-user-email' });
  if (person.organizationId !== frontEnd.organizationId)
    throw new AppError('forwarded_user_refused', "The person the front end names belongs to another organization than the key's.", {
      param: 'x-openwebui-user-email',
    });
  if (person.disabled) throw new AppError('account_disabled', 'The person the front end names has a disabled account.');
  return 'act_as';
}

export type FileAction = 'read' | 'delete';

const FILE_MANAGER_ACTIONS: ReadonlySet<FileAction> = new Set<FileAction>(['read', 'delete']);

export interface FileFacts {
  ownerId: number;
  organizationId: number;
  deleted: boolean;
}

/**
 * Files are private to their owner: nobody else sees them, except the admins of the file's
 * organization and system admins, who manage everything in what they administer. Whoever may not
 * manage a file does not see it at all (404), which is also what the single-file tool reports
 * when an assistant's owner names a file that is not theirs.
 */
export function decideFile(identity: Identity, facts: FileFacts, action: FileAction): Decision {
  if (FILE_MANAGER_ACTIONS.has(action) && managesFile(identity, facts)) return { allowed: true };
  return { allowed: false, visible: false };
}

function managesFile(identity: Identity, facts: FileFacts): boolean {
  if (facts.deleted) return false;
  return identity.isSystemAdmin || facts.ownerId === identity.userId || isOrganizationAdmin(identity, facts.organizationId);
}

/** `subject` names the file in the 404, e.g. `File "3/notes.txt"`. */
export function requireFileAction(identity: Identity, facts: FileFacts, action: FileAction, subject = 'File'): void {
  requireDecision(decideFile(identity, facts, action), subject);
}

export function fileListScope(identity: Identity): FileListScope {
  if (identity.isSystemAdmin) return { kind: 'all' };
  if (identity.role === 'admin') return { kind: 'organization', organizationId: identity.organizationId };
  return { kind: 'owner', userId: identity.userId };
}

/** Files feed assistants' tools, so whoever may build assistants may upload them; learners may not. */
export function requireFileUpload(identity: Identity): void {
  if (!canCreateAssistants(identity)) {
    throw new AppError('forbidden', 'Learners cannot upload files; ask an administrator for the creator role.');
  }
}

export type RubricAction = 'read' | 'export' | 'update' | 'delete';

export interface RubricFacts {
  ownerId: number;
  organizationId: number;
  visibility: 'private' | 'organization';
  deleted: boolean;
}

const RUBRIC_MEMBER_ACTIONS: ReadonlySet<RubricAction> = new Set<RubricAction>(['read', 'export']);

/**
 * Rubrics: the owner, the admins of the rubric's organization and system admins manage them. A
 * rubric with visibility `organization` may be read, exported and used in assistants by every
 * member of its organization (who gets 403 for changes); a private one, or one of another
 * organization, does not exist for anyone else (404). Assistants read rubrics with their owner's
 * identity, so an assistant only reaches what its owner may read.
 */
export function decideRubric(identity: Identity, facts: RubricFacts, action: RubricAction): Decision {
  if (facts.deleted) return { allowed: false, visible: false };
  if (identity.isSystemAdmin || facts.ownerId === identity.userId || isOrganizationAdmin(identity, facts.organizationId))
    return { allowed: true };
  const member = facts.visibility === 'organization' && facts.organizationId === identity.organizationId;
  if (member && RUBRIC_MEMBER_ACTIONS.has(action)) return { allowed: true };
  return { allowed: false, visible: member };
}

/** `subject` names the rubric in the 404, e.g. `Rubric "essay-2025-a1"`. */
export function requireRubricAction(identity: Identity, facts: RubricFacts, action: RubricAction, subject = 'Rubric'): void {
  requireDecision(decideRubric(identity, facts, action), subject);
}

/**
 * Where a rubricId is looked up. Ids are unique per organization, so the same id in two
 * organizations names two rubrics and choosing one never tells anything about another
 * organization's. Everyone looks in their own organization, or in the one they name (which only
 * shows them something if decideRubric lets them see it there); a system admin who names none may
 * also reach a rubric whose id only one organization holds.
 */
export interface RubricNamespace {
  organizationId: number;
  searchEveryOrganization: boolean;
}

export function rubricNamespace(identity: Identity, requestedOrganizationId: number | undefined): RubricNamespace {
  return {
    organizationId: requestedOrganizationId ?? identity.organizationId,
    searchEveryOrganization: identity.isSystemAdmin && requestedOrganizationId === undefined,
  };
}

/**
 * `mine`: the caller's own rubrics. `organization`: the rubrics of the caller's organization the
 * caller may read: all of them for its admins and system admins, else the ones shared with the
 * organization plus the caller's own.
 */
export function rubricListScope(identity: Identity, scope: 'mine' | 'organization'): RubricListScope {
  if (scope === 'mine') return { kind: 'owner', userId: identity.userId };
  if (identity.isSystemAdmin || identity.role === 'admin') return { kind: 'organization', organizationId: identity.organizationId };
  return { kind: 'organization_member', organizationId: identity.organizationId, userId: identity.userId };
}

/** Rubrics feed assistants, so whoever may build assistants may write them; learners may not. */
export function requireRubricCreation(identity: Identity): void {
  if (!canCreateAssistants(identity)) {
    throw new AppError('forbidden', 'Learners cannot create rubrics; ask an administrator for the creator role.');
  }
}

export type TemplateAction = 'read' | 'duplicate' | 'update' | 'delete';

export type TemplateVisibility = 'personal' | 'organization' | 'system';

export interface TemplateFacts {
  ownerId: number;
  organizationId: number;
  visibility: TemplateVisibility;
}

const TEMPLATE_READER_ACTIONS: ReadonlySet<TemplateAction> = new Set<TemplateAction>(['read', 'duplicate']);

/** Whether the template is one the caller may read: system-wide, shared with their organization, or their own. */
function readsTemplate(identity: Identity, facts: TemplateFacts): boolean {
  if (facts.visibility === 'system' || facts.ownerId === identity.userId) return true;
  return facts.visibility === 'organization' && facts.organizationId === identity.organizationId;
}

/** Whether the caller may change or delete the template (see decideTemplate). */
function managesTemplate(identity: Identity, facts: TemplateFacts): boolean {
  if (identity.isSystemAdmin) return true;
  if (facts.visibility === 'system') return false;
  if (facts.ownerId === identity.userId) return true;
  return facts.visibility === 'organization' && isOrganizationAdmin(identity, facts.organizationId);
}

/**
 * Templates (docs/templates.md) are for whoever builds assistants; learners have none and learn
 * of none (404). A personal template is its owner's alone; one shared with an organization is
 * read and duplicated by its creators and managed by its owner and the organization's admins;
 * a system-wide one is read and duplicated by every creator and managed by system admins only,
 * even when a former system admin owns it. System admins manage every template. Whoever may not
 * read a template gets 404; whoever reads it but may not change it gets 403.
 */
export function decideTemplate(identity: Identity, facts: TemplateFacts, action: TemplateAction): Decision {
  if (!canCreateAssistants(identity)) return { allowed: false, visible: false };
  if (managesTemplate(identity, facts)) return { allowed: true };
  const reader = readsTemplate(identity, facts);
  if (reader && TEMPLATE_READER_ACTIONS.has(action)) return { allowed: true };
  return { allowed: false, visible: reader };
}

export function requireTemplateAction(identity: Identity, facts: TemplateFacts, action: TemplateAction): void {
  requireDecision(decideTemplate(identity, facts, action), 'Template');
}

/** What the caller may do with a template, as its view lists it for the page's buttons. */
export function templateActions(identity: Identity, facts: TemplateFacts): TemplateAction[] {
  const actions: TemplateAction[] = ['read', 'duplicate', 'update', 'delete'];
  return actions.filter((action) => decideTemplate(identity, facts, action).allowed);
}

/**
 * Listing, creating and duplicating templates, and saving an assistant or a rubric as one: for
 * whoever may build assistants. A system-wide visibility is for system admins only, on create and
 * on edit alike.
 */
export function requireTemplateWriting(identity: Identity, visibility: TemplateVisibility): void {
  if (!canCreateAssistants(identity)) {
    throw new AppError('forbidden', 'Learners cannot use templates; ask an administrator for the creator role.');
  }
  if (visibility === 'system' && !identity.isSystemAdmin) {
    throw new AppError('forbidden', 'Only system administrators can make a template system-wide.', { param: 'visibility' });
  }
}

/** The templates a list may include: system-wide, shared with the caller's organization, and the caller's own. */
export function templateListScope(identity: Identity): TemplateListScope {
  if (!canCreateAssistants(identity)) {
    throw new AppError('forbidden', 'Learners cannot use templates; ask an administrator for the creator role.');
  }
  return { userId: identity.userId, organizationId: identity.organizationId };
}

export interface TraceFacts {
  assistantOwnerId: number;
  organizationId: number;
}

/** A trace shows how an assistant runs: only its owner and the admins over it may read it. */
export function requireTraceAccess(identity: Identity, trace: TraceFacts): void {
  const allowed =
    identity.isSystemAdmin || trace.assistantOwnerId === identity.userId || isOrganizationAdmin(identity, trace.organizationId);
  if (!allowed) throw new AppError('not_found', 'Trace not found.');
}

/** Organization settings are for that organization's admins and system admins; others learn nothing. */
export function requireOrganizationAdministration(identity: Identity, organizationId: number): void {
  if (identity.isSystemAdmin || isOrganizationAdmin(identity, organizationId)) return;
  if (identity.organizationId === organizationId)
    throw new AppError('forbidden', "Only the organization's admins can manage its settings.");
  throw new AppError('not_found', 'Organization not found.');
}

export type KnowledgeBaseAction = 'view' | 'query' | 'update' | 'delete';

export interface KnowledgeBaseFacts {
  ownerId: number;
  organizationId: number;
  sharedWithOrganization: boolean;
  deleted: boolean;
}

/**
 * Knowledge bases: the owner, the admins of its organization and system admins manage them;
 * shared with the organization, every member may see and query them; nobody else learns of them.
 */
export function decideKnowledgeBase(identity: Identity, facts: KnowledgeBaseFacts, action: KnowledgeBaseAction): Decision {
  if (facts.deleted) return { allowed: false, visible: false };
  const manager = identity.isSystemAdmin || facts.ownerId === identity.userId || isOrganizationAdmin(identity, facts.organizationId);
  if (manager) return { allowed: true };
  const member = facts.sharedWithOrganization && facts.organizationId === identity.organizationId;
  return member && (action === 'view' || action === 'query') ? { allowed: true } : { allowed: false, visible: member };
}

export function requireKnowledgeBaseAction(identity: Identity, facts: KnowledgeBaseFacts, action: KnowledgeBaseAction): void {
  requireDecision(decideKnowledgeBase(identity, facts, action), 'Knowledge base');
}

/** How a reader reaches a knowledge base's passage through an assistant that searches it. */
export interface PassageThroughAssistantFacts {
  assistant: AssistantFacts;
  /** Whether one of the assistant's knowledge tools names the knowledge base. */
  searchesKnowledgeBase: boolean;
  /** The assistant's owner, whose access its tools search with. */
  owner: Identity;
}

/**
 * Reading a passage of a knowledge base (with its neighbours): whoever may view the knowledge
 * base, and whoever may chat with an assistant whose tools search it for them (a learner of a
 * published or shared assistant sees the passages its answers cite), as long as the assistant's
 * owner may still query it. Everyone else gets 404, as for a knowledge base that does not exist.
 */
export function decidePassageReading(
  identity: Identity,
  knowledgeBase: KnowledgeBaseFacts,
  throughAssistant: PassageThroughAssistantFacts | undefined,
): Decision {
  if (decideKnowledgeBase(identity, knowledgeBase, 'view').allowed) return { allowed: true };
  const viaAssistant =
    throughAssistant !== undefined &&
    throughAssistant.searchesKnowledgeBase &&
    decideAssistant(identity, throughAssistant.assistant, 'chat').allowed &&
    decideKnowledgeBase(throughAssistant.owner, knowledgeBase, 'query').allowed;
  return viaAssistant ? { allowed: true } : { allowed: false, visible: false };
}

/**
 * Whose access opens a signed source link: a signed-in viewer other than the person the link
 * names reads with their own (they must be able to view the knowledge base, else 404); the
 * person it names, signed in or not, reads as themselves through the citing assistant.
 */
export function sourceLinkReader(viewer: Identity, linkUserId: number): 'viewer' | 'named_person' {
  return viewer.userId === linkUserId ? 'named_person' : 'viewer';
}

/** The same shape of scope as assistants: everything, one organization, or what a member may see. */
export function knowledgeBaseListScope(identity: Identity): KnowledgeBaseListScope {
  return assistantListScope(identity);
}

/**
 * LTI consumers and platforms of an organization are managed by its admins (and system admins).
 * Its other members get 403; everyone else 404, so registrations of other organizations cannot
 * be found by id.
 */
/** Whether the user manages the LTI registrations of their own organization (the admin page's link). */
export function canManageLti(identity: Identity): boolean {
  return identity.isSystemAdmin || isOrganizationAdmin(identity, identity.organizationId);
}

export function requireLtiAdministration(identity: Identity, organizationId: number, subject: string): void {
  if (identity.isSystemAdmin || isOrganizationAdmin(identity, organizationId)) return;
  if (identity.organizationId === organizationId)
    throw new AppError('forbidden', "Only the organization's admins can manage its LTI consumers and platforms.");
  throw new AppError('not_found', `${subject} not found.`);
}

/**
 * An organization's MCP servers (docs/mcp-servers-as-tools.md) are registered, changed and
 * removed by its admins (and system admins). Its other members get 403; everyone else 404, so
 * servers of other organizations cannot be found by id.
 */
export function requireMcpServerAdministration(identity: Identity, organizationId: number, subject: string): void {
  if (identity.isSystemAdmin || isOrganizationAdmin(identity, organizationId)) return;
  if (identity.organizationId === organizationId)
    throw new AppError('forbidden', "Only the organization's admins can register and change its MCP servers.");
  throw new AppError('not_found', `${subject} not found.`);
}

/** Whether the user sees an organization's MCP servers' URLs and header names (never values): its admins and system admins. */
export function mayAdministerMcpServers(identity: Identity, organizationId: number): boolean {
  return identity.isSystemAdmin || isOrganizationAdmin(identity, organizationId);
}

/**
 * Seeing an organization's MCP servers by name and their tools (the studio's ToolsManager) is for
 * everyone there who may build assistants; learners get 403; other organizations 404.
 */
export function requireMcpServerUse(identity: Identity, organizationId: number, subject: string): void {
  if (identity.isSystemAdmin) return;
  if (identity.organizationId !== organizationId) throw new AppError('not_found', `${subject} not found.`);
  if (!canCreateAssistants(identity))
    throw new AppError('forbidden', "Only the organization's creators and admins can see its MCP servers.");
}

/**
 * An assistant's MCP tool reaches only the servers of its owner's organization: a server id of
 * another organization is answered as if it did not exist, whoever the owner is.
 */
export function requireMcpServerForAssistant(owner: Identity, serverOrganizationId: number | undefined): void {
  if (!mayAssistantUseMcpServer(owner, serverOrganizationId)) throw new AppError('not_found', 'MCP server not found.');
}

/** Whether an assistant owned by `owner` may name an MCP server of that organization (undefined: no such server); checked at save and at chat time. */
export function mayAssistantUseMcpServer(owner: Identity, serverOrganizationId: number | undefined): boolean {
  return serverOrganizationId !== undefined && serverOrganizationId === owner.organizationId;
}

export interface LtiActivityFacts {
  organizationId: number;
  /** Whether the caller launched this activity as an LTI Instructor. */
  launchedAsInstructor: boolean;
}

/**
 * An LTI activity (a resource link) is set up and watched by whoever launched it as Instructor,
 * and by its organization's admins. Learners of the same organization get 403; others 404.
 */
export function requireLtiActivityTeaching(identity: Identity, facts: LtiActivityFacts): void {
  if (identity.isSystemAdmin || isOrganizationAdmin(identity, facts.organizationId)) return;
  if (identity.organizationId === facts.organizationId && facts.launchedAsInstructor) return;
  if (identity.organizationId === facts.organizationId)
    throw new AppError('forbidden', 'Only the teachers who launched this activity from their course can see or set it up.');
  throw new AppError('not_found', 'Activity not found.');
}

/** Users an LTI launch names Instructor become creators only when their organization allows it. */
export function ltiInstructorRole(organizationAllows: boolean): 'creator' | 'learner' {
  return organizationAllows ? 'creator' : 'learner';
}

export interface ChatFacts {
  ownerId: number;
}

/**
 * A chat is only ever its owner's: through /api/chats nobody else — not another member, not an
 * admin, not a system admin — learns it exists (404).
 */
export function requireChatOwner(identity: Identity, chat: ChatFacts | undefined): void {
  if (chat === undefined || chat.ownerId !== identity.userId) throw new AppError('not_found', 'Chat not found.');
}

/** The chats /api/chats lists: the caller's own, whatever their role. */
export function ownChatsScope(identity: Identity): ChatListScope {
  return { kind: 'owner', userId: identity.userId };
}

/** Whether the user is among those who may read members' chats with the assistant (see assistantChatsScope). */
export function mayReadAssistantChats(identity: Identity, assistant: AssistantFacts): boolean {
  return decideAssistant(identity, assistant, 'update').allowed;
}

/**
 * An assistant's test cases and runs (docs/assistant-tests.md) are for whoever manages it: its
 * owner, the admins over it and system admins. There is no "share for editing" level yet, so a
 * user it is shared with (to view) does not see them. Everyone else, including those who may see
 * or chat with the assistant, gets 404, so tests cannot be probed.
 */
export function requireAssistantTesting(identity: Identity, assistant: AssistantFacts): void {
  if (!decideAssistant(identity, assistant, 'update').allowed) throw new AppError('not_found', 'Assistant not found.');
}

/**
 * Reading other people's chats with an assistant (DESIGN §9): only whoever manages the assistant
 * (its owner, the admins over it, system admins), and only the chats of members whose
 * organization turned `owners_can_read_chats` on; the store applies that part through the scope.
 * Everyone else gets 404 for the assistant, so its chats cannot be probed. Admins get no other
 * way in: with the setting off they read no learner's chat.
 */
export function assistantChatsScope(identity: Identity, assistant: AssistantFacts & { id: number }): ChatListScope {
  if (!mayReadAssistantChats(identity, assistant)) throw new AppError('not_found', 'Assistant not found.');
  return { kind: 'assistant_readers', assistantId: assistant.id };
}

/**
 * An assistant's insights (its learners' use, counted) are for whoever manages it: its owner, the
 * admins over it, system admins. Someone who may see the assistant (a share, a published one in
 * their organization) gets 403; anyone else 404, so assistants cannot be probed.
 */
export function requireAssistantInsights(identity: Identity, assistant: AssistantFacts): void {
  requireDecision(decideAssistant(identity, assistant, 'update'), 'Assistant');
}

/**
 * The list of organizations (create, rename, suspend, delete) is for system admins. An
 * organization's admins may read their own organization (not change it); its other members get
 * 403, and everyone else 404, so other organizations cannot be found by id.
 */
export function requireOrganizationDirectoryAction(
  identity: Identity,
  organizationId: number | undefined,
  action: 'view' | 'manage',
): void {
  if (identity.isSystemAdmin) return;
  if (organizationId === undefined) throw new AppError('forbidden', 'Only system administrators manage organizations.');
  if (action === 'view' && isOrganizationAdmin(identity, organizationId)) return;
  if (identity.organizationId === organizationId) throw new AppError('forbidden', 'Only system administrators manage organizations.');
  throw new AppError('not_found', 'Organization not found.');
}

/** Whether the user manages the list of organizations (the admin page's link): system admins only. */
export function canManageOrganizations(identity: Identity): boolean {
  return identity.isSystemAdmin;
}

/** Moving a user to another organization crosses organizations, so only system admins may. */
export function requireUserMove(identity: Identity): void {
  if (!identity.isSystemAdmin) {
    throw new AppError('forbidden', 'Only system administrators can move a user to another organization.', { param: 'organization_id' });
  }
}

export interface MembershipFacts {
  isSystemAdmin: boolean;
  /** The status of the user's organization: `active` or `suspended`. */
  organizationStatus: string;
}

/**
 * A suspended organization's members cannot log in, use their sessions or API keys, or arrive by
 * LTI; system admins never lose access this way, so they can always reactivate it.
 */
export function isLockedOutBySuspension(member: MembershipFacts): boolean {
  return member.organizationStatus === 'suspended' && !member.isSystemAdmin;
}

/**
 * After an admin reset someone's password, the one-time password only lets its holder choose a
 * new one (the HTTP layer lets through the password change, logout and /api/me); every other call
 * is refused until then.
 */
export function requireOwnPasswordChosen(identity: Identity): void {
  if (identity.mustChangePassword === true) throw new AppError('password_change_required');
}

/**
 * Whose usage a report may include (docs/usage.md): system admins everyone's, or one
 * organization's when they name it; an organization's admins their organization's; everyone else
 * their own requests and the requests to the assistants they own. Naming another organization
 * than one's own is answered as if it did not exist.
 */
export function usageScope(identity: Identity, organizationId: number | undefined): UsageScope {
  if (identity.isSystemAdmin) return organizationId === undefined ? { kind: 'all' } : { kind: 'organization', organizationId };
  if (organizationId !== undefined && organizationId !== identity.organizationId)
    throw new AppError('not_found', 'Organization not found.');
  if (identity.role === 'admin') return { kind: 'organization', organizationId: identity.organizationId };
  return { kind: 'own', userId: identity.userId };
}

/** Whether a usage report may name the people in it: only admins over them; others see their own name only. */
export function mayNameUsersInUsage(scope: UsageScope): boolean {
  return scope.kind !== 'own';
}

/**
 * Who reads the audit log (GET /api/audit, docs/audit-log.md): system admins every entry, or one
 * organization's when they name it; an organization's admins the entries recorded for their
 * organization (never those recorded for none, such as refused logins, which only system admins
 * see); everyone else nothing (403). Naming another organization than one's own is answered as if
 * it did not exist.
 */
export function auditScope(identity: Identity, organizationId: number | undefined): AuditScope {
  if (identity.isSystemAdmin) return organizationId === undefined ? { kind: 'all' } : { kind: 'organization', organizationId };
  if (identity.role !== 'admin') throw new AppError('forbidden', 'Only administrators can read the audit log.');
  if (organizationId !== undefined && organizationId !== identity.organizationId)
    throw new AppError('not_found', 'Organization not found.');
  return { kind: 'organization', organizationId: identity.organizationId };
}
