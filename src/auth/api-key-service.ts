/**
 * API keys: created once (the key is shown only then), listed without the key, deleted. A key may
 * expire on a date its creator chooses, and a system admin may mark it as a trusted front end's
 * (the only keys whose forwarded-user header is believed) or issue it for a service account.
 * Who may create what is decided by permissions.ts.
 */
import type { Kysely } from 'kysely';
import { AppError } from '../errors/app-error.js';
import { deleteApiKey, findApiKeyById, insertApiKey, listApiKeys } from '../store/api-keys-repository.js';
import { appendAuditEntry } from '../store/audit-log-repository.js';
import { findOrganizationPolicies } from '../store/organization-settings-repository.js';
import type { ApiKeyRow, Database } from '../store/schema.js';
import { findUserById } from '../store/users-repository.js';
import type { PageBounds } from '../validation/page-query-schema.js';
import type { ApiKeyView, NewApiKeyInput } from './api-key-schemas.js';
import type { CallContext } from './call-context.js';
import { requireApiKeyCreation, requireApiKeyOwner } from './permissions.js';
import { API_KEY_DISPLAY_LENGTH, generateApiKey, hashToken } from './tokens.js';

/** A date, a time and a zone, as in 2027-01-31T23:59:59Z or 2027-01-31T23:59:59.5+01:00; fixed widths, so it cannot backtrack. */
const DATE_TIME_SHAPE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?(?:Z|[+-]\d{2}:\d{2})$/;

function apiKeyView(row: ApiKeyRow): ApiKeyView {
  return {
    id: row.id,
    name: row.name,
    prefix: row.key_prefix,
    created_at: row.created_at,
    last_used_at: row.last_used_at,
    expires_at: row.expires_at,
    trusted_front_end: row.trusted_front_end === 1,
    source_links: row.source_links === 1,
  };
}

/** Whether the date part names a real day: Date.parse rolls 2027-02-30 over into March instead of refusing it. */
function isCalendarDay(value: string): boolean {
  const [year, month, day] = value.slice(0, 10).split('-').map(Number) as [number, number, number];
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

/** The expiry as a canonical UTC timestamp, so stored values compare as text and as dates alike. */
function readExpiry(value: string | undefined, now: number): string | null {
  if (value === undefined) return null;
  const milliseconds = DATE_TIME_SHAPE.test(value) && isCalendarDay(value) ? Date.parse(value) : Number.NaN;
  if (Number.isNaN(milliseconds)) {
    throw new AppError('invalid_body', '"expires_at" must be a date and time with a zone, such as 2027-01-31T23:59:59Z.', {
      param: 'expires_at',
    });
  }
  if (milliseconds <= now) throw new AppError('invalid_body', '"expires_at" must be in the future.', { param: 'expires_at' });
  return new Date(milliseconds).toISOString();
}

export class ApiKeyService {
  constructor(
    private readonly db: Kysely<Database>,
    /** Called once a key is deleted, so this process's caches stop accepting it at once. */
    private readonly onKeyDeleted: () => void,
  ) {}

  async create(context: CallContext, input: NewApiKeyInput): Promise<ApiKeyView & { key: string }> {
    const { identity } = context;
    const ownerId = input.user_id ?? identity.userId;
    const trustedFrontEnd = input.trusted_front_end ?? false;
    const sourceLinks = input.source_links ?? false;
    const policies = await findOrganizationPolicies(this.db, identity.organizationId);
    requireApiKeyCreation(identity, {
      ownerId,
      trustedFrontEnd,
      sourceLinks,
      learnersCreateApiKeys: policies?.learnersCreateApiKeys ?? true,
    });
    const expiresAt = readExpiry(input.expires_at, Date.now());
    const owner = ownerId === identity.userId ? undefined : await findUserById(this.db, ownerId);
    if (ownerId !== identity.userId && owner === undefined)
      throw new AppError('unknown_users', `User ${ownerId} does not exist.`, { param: 'user_id' });
    const key = generateApiKey();
    const row = await this.db.transaction().execute(async (transaction) => {
      const inserted = await insertApiKey(transaction, {
        userId: ownerId,
        name: input.name.trim(),
        keyPrefix: key.slice(0, API_KEY_DISPLAY_LENGTH),
        keyHash: hashToken(key),
        trustedFrontEnd,
        sourceLinks,
        expiresAt,
      });
      await appendAuditEntry(transaction, {
        actorUserId: identity.userId,
        organizationId: owner?.organization_id ?? identity.organizationId,
        action: 'api_key.create',
        targetType: 'api_key',
        targetId: inserted.id,
        details: { owner_user_id: ownerId, trusted_front_end: trustedFrontEnd, source_links: sourceLinks, expires: expiresAt !== null },
        requestId: context.requestId,
      });
      return inserted;
    });
    return { ...apiKeyView(row), key };
  }

  async list(context: CallContext, page: PageBounds): Promise<{ items: ApiKeyView[]; total: number }> {
    const keys = await listApiKeys(this.db, context.identity.userId, page);
    return { items: keys.items.map(apiKeyView), total: keys.total };
  }

  async delete(context: CallContext, id: number): Promise<void> {
    const row = await findApiKeyById(this.db, id);
    requireApiKeyOwner(context.identity, row?.user_id ?? -1);
    await this.db.transaction().execute(async (transaction) => {
      await deleteApiKey(transaction, id);
      await appendAuditEntry(transaction, {
        actorUserId: context.identity.userId,
        organizationId: context.identity.organizationId,
        action: 'api_key.delete',
        targetType: 'api_key',
        targetId: id,
        requestId: context.requestId,
      });
    });
    this.onKeyDeleted();
  }
}
