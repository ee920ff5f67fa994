/** A user's own API keys: created once (the key is shown only then), listed without the key, deleted. */
import type { Kysely } from 'kysely';
import { deleteApiKey, findApiKeyById, insertApiKey, listApiKeys } from '../store/api-keys-repository.js';
import { appendAuditEntry } from '../store/audit-log-repository.js';
import type { ApiKeyRow, Database } from '../store/schema.js';
import type { CallContext } from './call-context.js';
import { requireApiKeyOwner } from './permissions.js';
import { API_KEY_DISPLAY_LENGTH, generateApiKey, hashToken } from './tokens.js';

export interface ApiKeyView {
  id: number;
  name: string;
  prefix: string;
  created_at: string;
  last_used_at: string | null;
}

function apiKeyView(row: ApiKeyRow): ApiKeyView {
  return { id: row.id, name: row.name, prefix: row.key_prefix, created_at: row.created_at, last_used_at: row.last_used_at };
}

export class ApiKeyService {
  constructor(private readonly db: Kysely<Database>) {}

  async create(context: CallContext, name: string): Promise<ApiKeyView & { key: string }> {
    const key = generateApiKey();
    const row = await this.db.transaction().execute(async (transaction) => {
      const inserted = await insertApiKey(transaction, context.identity.userId, name.trim(), key.slice(0, API_KEY_DISPLAY_LENGTH), hashToken(key));
      await appendAuditEntry(transaction, {
        actorUserId: context.identity.userId,
        organizationId: context.identity.organizationId,
        action: 'api_key.create',
        targetType: 'api_key',
        targetId: inserted.id,
        requestId: context.requestId,
      });
      return inserted;
    });
    return { ...apiKeyView(row), key };
  }

  async list(context: CallContext): Promise<ApiKeyView[]> {
    return (await listApiKeys(this.db, context.identity.userId)).map(apiKeyView);
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
  }
}
