/**
 * An organization's self sign-up, for its admins and system admins (docs/sign-up.md): read it,
 * turn it on or off with its allowed email domain and role, and rotate its key. A key is made by
 * the server and shown once, in the answer that made it; the store keeps only its hash. Every
 * change is audited in the same transaction, never with the key.
 */
import type { Kysely } from 'kysely';
import type { CallContext } from '../auth/call-context.js';
import { auditEntryOf } from '../auth/call-context.js';
import { requireOrganizationAdministration } from '../auth/permissions.js';
import { generateSignUpKey, hashSignUpKey } from '../auth/sign-up/sign-up-key.js';
import { AppError } from '../errors/app-error.js';
import { appendAuditEntry } from '../store/audit-log-repository.js';
import { findOrganizationById } from '../store/organizations-repository.js';
import type { Database, OrganizationSignUpRow } from '../store/schema.js';
import { findSignUp, replaceSignUpKey, saveSignUpSettings, setFirstSignUpKey } from '../store/sign-up-repository.js';
import type { SignUpSettingsInput, SignUpSettingsView } from './sign-up-settings-schemas.js';

const LABEL_CHARACTERS_MAXIMUM = 63;

function settingsView(organizationId: number, row: OrganizationSignUpRow | undefined, newKey?: string): SignUpSettingsView {
  return {
    organization_id: organizationId,
    enabled: row?.enabled === 1,
    allowed_email_domain: row?.allowed_email_domain ?? null,
    role: row?.role ?? 'learner',
    has_key: row?.key_hash != null,
    key_created_at: row?.key_created_at ?? null,
    ...(newKey !== undefined && { sign_up_key: newKey }),
  };
}

/** A domain of two or more dot-separated labels, each of letters, digits and inner hyphens; lower-cased. */
function normalizedDomain(domain: string | null | undefined): string | null {
  if (domain == null) return null;
  const labels = domain.toLowerCase().split('.');
  const wellFormed =
    labels.length >= 2 &&
    labels.every(
      (label) => label.length >= 1 && label.length <= LABEL_CHARACTERS_MAXIMUM && !label.startsWith('-') && !label.endsWith('-'),
    );
  if (!wellFormed) {
    throw new AppError('invalid_body', 'allowed_email_domain must be a domain such as uni.edu (labels separated by dots).', {
      param: 'allowed_email_domain',
    });
  }
  return labels.join('.');
}

export class SignUpSettingsService {
  constructor(private readonly db: Kysely<Database>) {}

  private async requireOrganization(context: CallContext, organizationId: number): Promise<void> {
    requireOrganizationAdministration(context.identity, organizationId);
    if (!(await findOrganizationById(this.db, organizationId))) throw new AppError('not_found', 'Organization not found.');
  }

  async get(context: CallContext, organizationId: number): Promise<SignUpSettingsView> {
    await this.requireOrganization(context, organizationId);
    return settingsView(organizationId, await findSignUp(this.db, organizationId));
  }

  async update(context: CallContext, organizationId: number, input: SignUpSettingsInput): Promise<SignUpSettingsView> {
    await this.requireOrganization(context, organizationId);
    const allowedEmailDomain = normalizedDomain(input.allowed_email_domain);
    const newKey = await this.db.transaction().execute(async (transaction) => {
      await saveSignUpSettings(transaction, organizationId, { enabled: input.enabled, allowedEmailDomain, role: input.role });
      // Turned on without a key, sign-up would refuse everyone: make the first key now.
      const candidate = input.enabled ? generateSignUpKey() : undefined;
      const key =
        candidate !== undefined && (await setFirstSignUpKey(transaction, organizationId, hashSignUpKey(candidate))) ? candidate : undefined;
      const details = {
        enabled: input.enabled,
        allowed_email_domain: allowedEmailDomain,
        role: input.role,
        key_created: key !== undefined,
      };
      await appendAuditEntry(
        transaction,
        auditEntryOf(context, { type: 'organization', id: organizationId, organizationId }, 'organization.sign_up_update', details),
      );
      return key;
    });
    return settingsView(organizationId, await findSignUp(this.db, organizationId), newKey);
  }

  /** A new key; the old one stops working at once. Sign-up stays on or off as it was. */
  async rotateKey(context: CallContext, organizationId: number): Promise<SignUpSettingsView> {
    await this.requireOrganization(context, organizationId);
    const key = generateSignUpKey();
    await this.db.transaction().execute(async (transaction) => {
      await replaceSignUpKey(transaction, organizationId, hashSignUpKey(key));
      await appendAuditEntry(
        transaction,
        auditEntryOf(context, { type: 'organization', id: organizationId, organizationId }, 'organization.sign_up_key_rotate'),
      );
    });
    return settingsView(organizationId, await findSignUp(this.db, organizationId), key);
  }
}
