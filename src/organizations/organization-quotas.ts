/**
 * The count and size limits of an organization (its `limits` setting), checked before what would
 * pass them is stored: `max_assistants` and `max_assistants_per_user` when an assistant is
 * created, imported or converted, and `storage_gb` when a file or knowledge-base document is
 * uploaded. A limit passed is a 429 `quota_exceeded` naming it. The token and cost limits are
 * stored with them but checked by the usage side, before a model is called.
 *
 * The assistant counts are exact: the check runs in the insert's transaction after taking the
 * organization row's lock (organization-quota-counts-repository.ts), so concurrent creates, in
 * any number of processes, are counted one after another. The storage check is not under that
 * lock (an upload streams for long): uploads running at the same moment may together pass
 * `storage_gb` by at most what they carry, each being at most FILE_UPLOAD_MAX_BYTES or
 * KNOWLEDGE_UPLOAD_MAX_BYTES.
 */
import type { Kysely } from 'kysely';
import { AppError } from '../errors/app-error.js';
import { countLiveAssistants, lockOrganization, storedBytesOfOrganization } from '../store/organization-quota-counts-repository.js';
import { findOrganizationById } from '../store/organizations-repository.js';
import type { Database } from '../store/schema.js';
import type { LimitName } from './organization-controls-schemas.js';
import { storedDisabledPlugins, storedLimits, type OrganizationLimits } from './organization-controls.js';
import type { DisabledPlugins } from './plugin-policy.js';
import type { StoredConfig } from './provider-settings-service.js';

const BYTES_PER_GB = 1_000_000_000;

function quotaExceeded(limit: LimitName, message: string, details: Record<string, unknown>): AppError {
  return new AppError('quota_exceeded', message, { param: `limits.${limit}`, details: { limit, ...details } });
}

/**
 * Locks the organization's row for the rest of `transaction` and reads its controls as they are
 * now (not from any cache), for a check whose insert follows in the same transaction.
 */
export async function lockedOrganizationControls(
  transaction: Kysely<Database>,
  organizationId: number,
): Promise<{ disabled: DisabledPlugins; limits: OrganizationLimits }> {
  await lockOrganization(transaction, organizationId);
  const organization = await findOrganizationById(transaction, organizationId);
  if (!organization) throw new AppError('not_found', 'Organization not found.');
  const config = JSON.parse(organization.config) as StoredConfig;
  return { disabled: storedDisabledPlugins(config), limits: storedLimits(config) };
}

/** Throws 429 unless one more assistant owned by `ownerId` fits the limits; run after lockedOrganizationControls. */
export async function requireAssistantRoom(
  transaction: Kysely<Database>,
  target: { organizationId: number; ownerId: number; limits: OrganizationLimits },
): Promise<void> {
  const { organizationId, ownerId, limits } = target;
  if (limits.max_assistants_per_user !== undefined) {
    const owned = await countLiveAssistants(transaction, organizationId, ownerId);
    if (owned >= limits.max_assistants_per_user) {
      throw quotaExceeded(
        'max_assistants_per_user',
        `You already own ${owned} assistants, the most this organization's limit max_assistants_per_user (${limits.max_assistants_per_user}) allows; delete one before creating another.`,
        { maximum: limits.max_assistants_per_user, current: owned },
      );
    }
  }
  if (limits.max_assistants !== undefined) {
    const total = await countLiveAssistants(transaction, organizationId);
    if (total >= limits.max_assistants) {
      throw quotaExceeded(
        'max_assistants',
        `This organization has ${total} assistants, the most its limit max_assistants (${limits.max_assistants}) allows; one must be deleted before another is created.`,
        { maximum: limits.max_assistants, current: total },
      );
    }
  }
}

/** Throws 429 when storing `addedBytes` more would take the organization past `storage_gb`. */
export async function requireStorageRoom(
  db: Kysely<Database>,
  target: { organizationId: number; addedBytes: number; limits: OrganizationLimits },
): Promise<void> {
  const limit = target.limits.storage_gb;
  if (limit === undefined) return;
  const maximumBytes = Math.floor(limit * BYTES_PER_GB);
  const storedBytes = await storedBytesOfOrganization(db, target.organizationId);
  if (storedBytes + target.addedBytes > maximumBytes) {
    throw quotaExceeded(
      'storage_gb',
      `This upload would take the organization's files and knowledge-base documents past its limit storage_gb (${limit} GB; ${storedBytes} bytes are stored); delete some before uploading more.`,
      { maximum_bytes: maximumBytes, stored_bytes: storedBytes, upload_bytes: target.addedBytes },
    );
  }
}
