/**
 * The organizations of a Merino server, for system admins: create one with a unique slug, list
 * them, rename, suspend or reactivate one, and delete one that is empty. Every change is audited
 * in the same transaction. Suspension itself is enforced where people authenticate
 * (src/auth/authenticator.ts) and where LTI launches arrive.
 */
import type { Kysely } from 'kysely';
import type { CallContext } from '../auth/call-context.js';
import { auditEntryOf } from '../auth/call-context.js';
import { requireOrganizationDirectoryAction } from '../auth/permissions.js';
import { AppError } from '../errors/app-error.js';
import { appendAuditEntry } from '../store/audit-log-repository.js';
import {
  countOrganizationContents,
  deleteOrganization,
  insertOrganizationIfSlugFree,
  listOrganizations,
  updateOrganization,
} from '../store/organization-directory-repository.js';
import { findOrganizationById } from '../store/organizations-repository.js';
import type { Database, OrganizationRow } from '../store/schema.js';
import type { PageBounds } from '../validation/page-query-schema.js';
import type { NewOrganizationInput, OrganizationListItem, OrganizationPatchInput, OrganizationView } from './organization-schemas.js';

function organizationView(row: OrganizationRow): OrganizationView {
  return {
    id: row.id,
    slug: row.slug,
    name: row.name,
    status: row.status === 'suspended' ? 'suspended' : 'active',
    is_system: row.is_system === 1,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

export class OrganizationService {
  constructor(
    private readonly db: Kysely<Database>,
    /** Called once an organization's status changed, so this process's cached API-key identities are read again. */
    private readonly onOrganizationChanged: () => void,
  ) {}

  async create(context: CallContext, input: NewOrganizationInput): Promise<OrganizationView> {
    requireOrganizationDirectoryAction(context.identity, undefined, 'manage');
    const name = input.name.trim();
    const id = await this.db.transaction().execute(async (transaction) => {
      const created = await insertOrganizationIfSlugFree(transaction, input.slug, name);
      if (created === undefined) {
        throw new AppError('slug_taken', `An organization with the slug "${input.slug}" already exists.`, { param: 'slug' });
      }
      await appendAuditEntry(
        transaction,
        auditEntryOf(context, { type: 'organization', id: created, organizationId: created }, 'organization.create', { slug: input.slug }),
      );
      return created;
    });
    return organizationView((await findOrganizationById(this.db, id))!);
  }

  async list(context: CallContext, page: PageBounds): Promise<{ items: OrganizationListItem[]; total: number }> {
    requireOrganizationDirectoryAction(context.identity, undefined, 'view');
    const found = await listOrganizations(this.db, page);
    return {
      items: found.items.map((row) => ({ ...organizationView(row), member_count: Number(row.member_count ?? 0) })),
      total: found.total,
    };
  }

  async get(context: CallContext, organizationId: number): Promise<OrganizationView> {
    requireOrganizationDirectoryAction(context.identity, organizationId, 'view');
    return organizationView(await this.existing(organizationId));
  }

  async update(context: CallContext, organizationId: number, patch: OrganizationPatchInput): Promise<OrganizationView> {
    requireOrganizationDirectoryAction(context.identity, organizationId, 'manage');
    const organization = await this.existing(organizationId);
    if (organization.is_system === 1 && patch.status === 'suspended') {
      throw new AppError('forbidden', 'The system organization cannot be suspended.', { param: 'status' });
    }
    await this.db.transaction().execute(async (transaction) => {
      await updateOrganization(transaction, organizationId, { name: patch.name?.trim(), status: patch.status });
      const details = { fields: Object.keys(patch).sort(), ...(patch.status !== undefined && { status: patch.status }) };
      await appendAuditEntry(
        transaction,
        auditEntryOf(context, { type: 'organization', id: organizationId, organizationId }, 'organization.update', details),
      );
    });
    if (patch.status !== undefined) this.onOrganizationChanged();
    return organizationView(await this.existing(organizationId));
  }

  /** Only an empty organization is deleted; otherwise 409 counting what is still in it. */
  async delete(context: CallContext, organizationId: number): Promise<void> {
    requireOrganizationDirectoryAction(context.identity, organizationId, 'manage');
    const organization = await this.existing(organizationId);
    if (organization.is_system === 1) throw new AppError('forbidden', 'The system organization cannot be deleted.');
    await this.db.transaction().execute(async (transaction) => {
      const contents = await countOrganizationContents(transaction, organizationId);
      const left = Object.entries(contents).filter(([, count]) => count > 0);
      if (left.length > 0) {
        const named = left.map(([kind, count]) => `${count} ${kind.replace('_', ' ')}`).join(', ');
        throw new AppError('organization_not_empty', `The organization still has ${named}; move or delete them first.`, {
          details: { ...contents },
        });
      }
      await deleteOrganization(transaction, organizationId);
      await appendAuditEntry(
        transaction,
        auditEntryOf(context, { type: 'organization', id: organizationId, organizationId: null }, 'organization.delete', {
          slug: organization.slug,
        }),
      );
    });
  }

  private async existing(organizationId: number): Promise<OrganizationRow> {
    const organization = await findOrganizationById(this.db, organizationId);
    if (!organization) throw new AppError('not_found', 'Organization not found.');
    return organization;
  }
}
