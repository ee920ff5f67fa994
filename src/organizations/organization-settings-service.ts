/**
 * An organization's settings in one document, read and changed by its admins and system admins:
 * its policies for its members (learners' API keys, chat retention, owners reading chats, LTI
 * instructors), its providers, models, small fast model, knowledge-base server and Moodle (kept by
 * provider-settings-service.ts, which `/providers` also serves), the plugins it enables and its
 * limits (organization-controls.ts). A change is checked whole before any part is saved; each part
 * then writes its own audit entry.
 */
import type { Kysely } from 'kysely';
import type { CallContext } from '../auth/call-context.js';
import { requireOrganizationAdministration } from '../auth/permissions.js';
import { AppError } from '../errors/app-error.js';
import { appendAuditEntry } from '../store/audit-log-repository.js';
import {
  findOrganizationPolicies,
  updateOrganizationPolicies,
  type OrganizationPolicies,
} from '../store/organization-settings-repository.js';
import { findOrganizationById } from '../store/organizations-repository.js';
import type { Database } from '../store/schema.js';
import type { OrganizationControls } from './organization-controls.js';
import type { OrganizationSettingsPatch, OrganizationSettingsView } from './organization-settings-schemas.js';
import type { ProviderSettingsPatch } from './provider-settings-schemas.js';
import type { ProviderSettingsService, StoredConfig } from './provider-settings-service.js';

const POLICY_FIELDS = [
  'learners_create_api_keys',
  'chat_retention_days',
  'owners_can_read_chats',
  'lti_instructors_create',
  'front_end_creates_learners',
] as const;
const PROVIDER_FIELDS = ['providers', 'kb_server', 'moodle', 'models', 'small_fast_model'] as const;

function policiesView(policies: OrganizationPolicies) {
  return {
    learners_create_api_keys: policies.learnersCreateApiKeys,
    chat_retention_days: policies.chatRetentionDays,
    owners_can_read_chats: policies.ownersCanReadChats,
    lti_instructors_create: policies.ltiInstructorsCreate,
    front_end_creates_learners: policies.frontEndCreatesLearners,
  };
}

/** The `/providers` part of a settings patch, or undefined when it names none of it. */
function providerPart(patch: OrganizationSettingsPatch): ProviderSettingsPatch | undefined {
  const part = Object.fromEntries(PROVIDER_FIELDS.filter((field) => patch[field] !== undefined).map((field) => [field, patch[field]]));
  return Object.keys(part).length === 0 ? undefined : part;
}

export class OrganizationSettingsService {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly providers: ProviderSettingsService,
    private readonly controls: OrganizationControls,
  ) {}

  private async load(organizationId: number): Promise<OrganizationPolicies> {
    const policies = await findOrganizationPolicies(this.db, organizationId);
    if (!policies) throw new AppError('not_found', 'Organization not found.');
    return policies;
  }

  async get(context: CallContext, organizationId: number): Promise<OrganizationSettingsView> {
    requireOrganizationAdministration(context.identity, organizationId);
    const policies = await this.load(organizationId);
    const organization = await findOrganizationById(this.db, organizationId);
    return {
      ...policiesView(policies),
      ...(await this.providers.get(context, organizationId)),
      ...this.controls.viewOf(JSON.parse(organization?.config ?? '{}') as StoredConfig),
    };
  }

  async update(context: CallContext, organizationId: number, patch: OrganizationSettingsPatch): Promise<OrganizationSettingsView> {
    requireOrganizationAdministration(context.identity, organizationId);
    await this.load(organizationId);
    this.controls.checkPatch(patch);
    const providers = providerPart(patch);
    // The provider part checks its URLs before it writes; it is the only part that can still refuse, so it goes first.
    if (providers !== undefined) await this.providers.update(context, organizationId, providers);
    const policyFields = POLICY_FIELDS.filter((field) => patch[field] !== undefined);
    await this.db.transaction().execute(async (transaction) => {
      await this.controls.apply(transaction, context, organizationId, { plugins: patch.plugins, limits: patch.limits });
      if (policyFields.length === 0) return;
      await updateOrganizationPolicies(transaction, organizationId, {
        learnersCreateApiKeys: patch.learners_create_api_keys,
        chatRetentionDays: patch.chat_retention_days,
        ownersCanReadChats: patch.owners_can_read_chats,
        ltiInstructorsCreate: patch.lti_instructors_create,
        frontEndCreatesLearners: patch.front_end_creates_learners,
      });
      await appendAuditEntry(transaction, {
        actorUserId: context.identity.userId,
        organizationId,
        action: 'organization.settings_update',
        targetType: 'organization',
        targetId: organizationId,
        details: Object.fromEntries(policyFields.map((field) => [field, patch[field] ?? null])),
        requestId: context.requestId,
      });
    });
    this.controls.forget(organizationId);
    return this.get(context, organizationId);
  }
}
