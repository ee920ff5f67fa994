/**
 * Sharing an assistant with named users of its organization: reading and replacing its share list.
 * The permission module decides who may share (the `share` action); a replacement is written with
 * its audit entry in the same transaction.
 */
import type { Kysely } from 'kysely';
import type { CallContext } from '../auth/call-context.js';
import { AppError } from '../errors/app-error.js';
import { listShares, replaceShares } from '../store/assistants-repository.js';
import { appendAuditEntry } from '../store/audit-log-repository.js';
import type { Database } from '../store/schema.js';
import { findUsersByEmails } from '../store/users-repository.js';
import { assistantAuditEntry, loadAssistant } from './assistant-records.js';

export class AssistantSharingService {
  constructor(private readonly db: Kysely<Database>) {}

  async getShares(context: CallContext, id: number): Promise<{ user_emails: string[] }> {
    await loadAssistant(this.db, context, id, 'share');
    return { user_emails: (await listShares(this.db, id)).map((share) => share.email) };
  }

  async putShares(context: CallContext, id: number, userEmails: string[]): Promise<{ user_emails: string[] }> {
    const record = await loadAssistant(this.db, context, id, 'share');
    const emails = [...new Set(userEmails.map((email) => email.trim().toLowerCase()))];
    const users = await findUsersByEmails(this.db, emails);
    const unknown = emails.filter((email) => !users.some((user) => user.email === email));
    if (unknown.length > 0) {
      throw new AppError('unknown_users', `No user has the email ${unknown.join(', ')}.`, {
        param: 'user_emails',
        details: { unknown_emails: unknown },
      });
    }
    const outsiders = users.filter((user) => user.organization_id !== record.organization_id).map((user) => user.email);
    if (outsiders.length > 0) {
      throw new AppError(
        'invalid_body',
        `Assistants can only be shared within their organization: ${outsiders.join(', ')} is not a member.`,
        {
          param: 'user_emails',
        },
      );
    }
    // Sharing with the owner is a no-op, not an error: a client may send back the whole member list.
    const userIds = users.filter((user) => user.id !== record.owner_id).map((user) => user.id);
    await this.db.transaction().execute(async (transaction) => {
      await replaceShares(transaction, id, userIds, context.identity.userId);
      await appendAuditEntry(transaction, assistantAuditEntry(context, record, 'assistant.share', { user_ids: userIds }));
    });
    return { user_emails: (await listShares(this.db, id)).map((share) => share.email) };
  }
}
