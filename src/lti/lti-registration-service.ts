/**
 * An organization's LTI registrations, managed by its admins: LTI 1.1 consumers (a key and a
 * secret shown once, stored encrypted) and LTI 1.3 platforms. Each carries the origins allowed to
 * frame Merino after its launches. Every change is audited, never with a secret.
 */
import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import { auditEntryOf, type CallContext } from '../auth/call-context.js';
import { requireLtiAdministration } from '../auth/permissions.js';
import { AppError } from '../errors/app-error.js';
import type { OutboundGuard } from '../outbound/outbound-guard.js';
import type { SecretBox } from '../secrets/secret-box.js';
import { appendAuditEntry } from '../store/audit-log-repository.js';
import { isUniqueViolation } from '../store/files-repository.js';
import {
  deleteLtiPlatform,
  findLtiConsumer,
  findLtiPlatform,
  insertLtiConsumer,
  insertLtiPlatform,
  listLtiConsumers,
  listLtiPlatforms,
  revokeLtiConsumer,
  updateLtiConsumer,
  updateLtiPlatform,
  type LtiPlatformFields,
} from '../store/lti-registrations-repository.js';
import type { Database, LtiConsumerRow, LtiPlatformRow } from '../store/schema.js';
import type { PageBounds } from '../validation/page-query-schema.js';
import type { CreatedLtiConsumer, LtiConsumerView, LtiPlatformView } from './lti-registration-schemas.js';

export interface LtiPlatformInput {
  organization_id?: number;
  issuer: string;
  client_id: string;
  deployment_ids: string[];
  auth_login_url: string;
  auth_token_url: string;
  jwks_url?: string | null;
  public_key?: string | null;
  frame_origins?: string[];
}

/** A page of an organization's registrations; the caller's own organization unless named. */
export interface ListQuery extends PageBounds {
  organization_id?: number;
}

function stringList(stored: string): string[] {
  const parsed = JSON.parse(stored) as unknown;
  return Array.isArray(parsed) ? parsed.filter((value): value is string => typeof value === 'string') : [];
}

function consumerView(row: LtiConsumerRow): LtiConsumerView {
  return {
    id: row.id,
    organization_id: row.organization_id,
    name: row.name,
    consumer_key: row.consumer_key,
    frame_origins: stringList(row.frame_origins),
    created_at: row.created_at,
  };
}

function platformView(row: LtiPlatformRow): LtiPlatformView {
  return {
    id: row.id,
    organization_id: row.organization_id,
    issuer: row.issuer,
    client_id: row.client_id,
    deployment_ids: stringList(row.deployment_ids),
    auth_login_url: row.auth_login_url,
    auth_token_url: row.auth_token_url,
    jwks_url: row.jwks_url,
    public_key: row.public_key,
    frame_origins: stringList(row.frame_origins),
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

/** Origins only (scheme, host, port): a path or anything else would not mean what an admin expects in frame-ancestors. */
function frameOrigins(values: string[] | undefined, field: string): string[] {
  return (values ?? []).map((value, index) => {
    const origin = URL.canParse(value) ? new URL(value) : undefined;
    if (!origin || (origin.protocol !== 'https:' && origin.protocol !== 'http:') || origin.origin !== value.replace(/\/$/, ''))
      throw new AppError('invalid_body', `${field}[${index}] must be an origin such as https://moodle.example.edu.`, {
        param: `${field}[${index}]`,
      });
    return origin.origin;
  });
}

function httpUrl(value: string, field: string): string {
  if (!URL.canParse(value) || !['http:', 'https:'].includes(new URL(value).protocol))
    throw new AppError('invalid_body', `${field} must be an http:// or https:// URL.`, { param: field });
  return value;
}

export class LtiRegistrationService {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly secrets: SecretBox,
    private readonly outbound: OutboundGuard,
  ) {}

  async createConsumer(
    context: CallContext,
    input: { organization_id?: number; name: string; frame_origins?: string[] },
  ): Promise<CreatedLtiConsumer> {
    const organizationId = input.organization_id ?? context.identity.organizationId;
    requireLtiAdministration(context.identity, organizationId, 'Organization');
    const origins = frameOrigins(input.frame_origins, 'frame_origins');
    const consumerKey = `merino-${randomBytes(12).toString('hex')}`;
    const secret = randomBytes(32).toString('base64url');
    const id = await this.db.transaction().execute(async (transaction) => {
      const consumerId = await insertLtiConsumer(transaction, {
        organizationId,
        name: input.name,
        consumerKey,
        secretEncrypted: this.secrets.encrypt(secret),
        frameOrigins: origins,
        createdBy: context.identity.userId,
      });
      await appendAuditEntry(
        transaction,
        auditEntryOf(context, { type: 'lti_consumer', id: consumerId, organizationId }, 'lti.consumer_create'),
      );
      return consumerId;
    });
    return { ...consumerView((await findLtiConsumer(this.db, id))!), consumer_secret: secret };
  }

  async listConsumers(context: CallContext, query: ListQuery): Promise<{ items: LtiConsumerView[]; total: number }> {
    const organization = query.organization_id ?? context.identity.organizationId;
    requireLtiAdministration(context.identity, organization, 'Organization');
    const rows = await listLtiConsumers(this.db, organization, query);
    return { items: rows.items.map(consumerView), total: rows.total };
  }

  private async consumer(context: CallContext, id: number): Promise<LtiConsumerRow> {
    const row = await findLtiConsumer(this.db, id);
    if (!row) throw new AppError('not_found', 'LTI consumer not found.');
    requireLtiAdministration(context.identity, row.organization_id, 'LTI consumer');
    return row;
  }

  async updateConsumer(context: CallContext, id: number, patch: { name?: string; frame_origins?: string[] }): Promise<LtiConsumerView> {
    const row = await this.consumer(context, id);
    const origins = patch.frame_origins === undefined ? undefined : frameOrigins(patch.frame_origins, 'frame_origins');
    await this.db.transaction().execute(async (transaction) => {
      await updateLtiConsumer(transaction, id, { name: patch.name, frameOrigins: origins });
      await appendAuditEntry(
        transaction,
        auditEntryOf(context, { type: 'lti_consumer', id, organizationId: row.organization_id }, 'lti.consumer_update', {
          fields: Object.keys(patch),
        }),
      );
    });
    return consumerView((await findLtiConsumer(this.db, id))!);
  }

  async revokeConsumer(context: CallContext, id: number): Promise<void> {
    const row = await this.consumer(context, id);
    await this.db.transaction().execute(async (transaction) => {
      await revokeLtiConsumer(transaction, id);
      await appendAuditEntry(
        transaction,
        auditEntryOf(context, { type: 'lti_consumer', id, organizationId: row.organization_id }, 'lti.consumer_revoke'),
      );
    });
  }

  private platformFields(input: LtiPlatformInput): LtiPlatformFields {
    const jwksUrl = input.jwks_url ?? null;
    const publicKey = input.public_key ?? null;
    if ((jwksUrl === null) === (publicKey === null))
      throw new AppError('invalid_body', 'Give the platform either a jwks_url or a public_key.', { param: 'jwks_url' });
    if (jwksUrl !== null) this.outbound.checkConfiguredUrl(httpUrl(jwksUrl, 'jwks_url'), 'jwks_url');
    if (publicKey !== null && !publicKey.includes('-----BEGIN PUBLIC KEY-----'))
      throw new AppError('invalid_body', 'public_key must be a PEM public key (-----BEGIN PUBLIC KEY-----).', { param: 'public_key' });
    return {
      issuer: input.issuer,
      clientId: input.client_id,
      deploymentIds: [...new Set(input.deployment_ids)],
      authLoginUrl: httpUrl(input.auth_login_url, 'auth_login_url'),
      authTokenUrl: httpUrl(input.auth_token_url, 'auth_token_url'),
      jwksUrl,
      publicKey,
      frameOrigins: frameOrigins(input.frame_origins, 'frame_origins'),
    };
  }

  private async writePlatform(write: () => Promise<number>): Promise<number> {
    try {
      return await write();
    } catch (error) {
      if (isUniqueViolation(error))
        throw new AppError('concurrent_change', 'A platform with this issuer and client_id is registered already.', { param: 'client_id' });
      throw error;
    }
  }

  async createPlatform(context: CallContext, input: LtiPlatformInput): Promise<LtiPlatformView> {
    const organizationId = input.organization_id ?? context.identity.organizationId;
    requireLtiAdministration(context.identity, organizationId, 'Organization');
    const fields = this.platformFields(input);
    const id = await this.writePlatform(() =>
      this.db.transaction().execute(async (transaction) => {
        const platformId = await insertLtiPlatform(transaction, organizationId, fields);
        await appendAuditEntry(
          transaction,
          auditEntryOf(context, { type: 'lti_platform', id: platformId, organizationId }, 'lti.platform_create'),
        );
        return platformId;
      }),
    );
    return platformView((await findLtiPlatform(this.db, id))!);
  }

  async listPlatforms(context: CallContext, query: ListQuery): Promise<{ items: LtiPlatformView[]; total: number }> {
    const organization = query.organization_id ?? context.identity.organizationId;
    requireLtiAdministration(context.identity, organization, 'Organization');
    const rows = await listLtiPlatforms(this.db, organization, query);
    return { items: rows.items.map(platformView), total: rows.total };
  }

  private async platform(context: CallContext, id: number): Promise<LtiPlatformRow> {
    const row = await findLtiPlatform(this.db, id);
    if (!row) throw new AppError('not_found', 'LTI platform not found.');
    requireLtiAdministration(context.identity, row.organization_id, 'LTI platform');
    return row;
  }

  async updatePlatform(context: CallContext, id: number, input: LtiPlatformInput): Promise<LtiPlatformView> {
    const row = await this.platform(context, id);
    const fields = this.platformFields(input);
    await this.writePlatform(async () => {
      await this.db.transaction().execute(async (transaction) => {
        await updateLtiPlatform(transaction, id, fields);
        await appendAuditEntry(
          transaction,
          auditEntryOf(context, { type: 'lti_platform', id, organizationId: row.organization_id }, 'lti.platform_update'),
        );
      });
      return id;
    });
    return platformView((await findLtiPlatform(this.db, id))!);
  }

  async deletePlatform(context: CallContext, id: number): Promise<void> {
    const row = await this.platform(context, id);
    await this.db.transaction().execute(async (transaction) => {
      await deleteLtiPlatform(transaction, id);
      await appendAuditEntry(
        transaction,
        auditEntryOf(context, { type: 'lti_platform', id, organizationId: row.organization_id }, 'lti.platform_delete'),
      );
    });
  }
}
