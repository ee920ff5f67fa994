/**
 * An organization's policies for its members, read and changed by its admins and system admins:
 * whether its learners may create API keys, how long its members' chats are kept, and whether
 * assistants' owners may read the chats of their assistants. Secrets and provider settings live apart, in
 * provider-settings-service.ts.
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
import type { Database } from '../store/schema.js';
import type { OrganizationSettingsPatch, OrganizationSettingsView } from './organization-settings-schemas.js';

function settingsView(policies: OrganizationPolicies): OrganizationSettingsView {
  return {
    learners_create_api_keys: policies.learnersCreateApiKeys,
    chat_retention_days: policies.chatRetentionDays,
    owners_can_read_chats: policies.ownersCanReadChats,
    lti_instructors_create: policies.ltiInstructorsCreate,
  };
}

export class OrganizationSettingsService {
  constructor(private readonly db: Kysely<Database>) {}

  private async load(organizationId: number): Promise<OrganizationPolicies> {
    const policies = await findOrganizationPolicies(this.db, organizationId);
    if (!policies) throw new AppError('not_found', 'Organization not found.');
    return policies;
  }

  async get(context: CallContext, organizationId: number): Promise<OrganizationSettingsView> {
    requireOrganizationAdministration(context.identity, organizationId);
    return settingsView(await this.load(organizationId));
  }

  async update(context: CallContext, organizationId: number, patch: OrganizationSettingsPatch): Promise<OrganizationSettingsView> {
    requireOrganizationAdministration(context.identity, organizationId);
    await this.load(organizationId);
    await this.db.transaction().execute(async (transaction) => {
      await updateOrganizationPolicies(transaction, organizationId, {
        learnersCreateApiKeys: patch.learners_create_api_keys,
        chatRetentionDays: patch.chat_retention_days,
        ownersCanReadChats: patch.owners_can_read_chats,
        ltiInstructorsCreate: patch.lti_instructors_create,
      });
      await appendAuditEntry(transaction, {
        actorUserId: context.identity.userId,
        organizationId,
        action: 'organization.settings_update',
        targetType: 'organization',
        targetId: organizationId,
        details: { ...patch },
        requestId: context.requestId,
      });
    });
    return settingsView(await this.load(organizationId));
  }
}
