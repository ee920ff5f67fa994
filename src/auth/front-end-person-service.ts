/**
 * The person a trusted front end (Open WebUI) chats for: the request runs as the Merino user the
 * forwarded email names in the key's organization, so their permissions, quotas and usage apply.
 * An email nobody has becomes a new learner when the organization allows it. permissions.ts
 * decides; this service gathers the facts and creates the learner. Emails and names are never
 * logged, and the audit entry of a created learner records only its id.
 */
import type { Kysely } from 'kysely';
import { appendAuditEntry } from '../store/audit-log-repository.js';
import { isUniqueViolation } from '../store/files-repository.js';
import { findOrganizationPolicies } from '../store/organization-settings-repository.js';
import type { Database } from '../store/schema.js';
import { findUserByEmail, findUserById, insertUser, type UserWithRole } from '../store/users-repository.js';
import { identityOf } from './authenticator.js';
import type { CallContext } from './call-context.js';
import { decideForwardedPerson } from './permissions.js';

/** Whom the front end's headers name: the email (lowercased) and, when sent, the display name. */
export interface ForwardedPerson {
  email: string;
  name: string | undefined;
}

/** A learner created without a name gets this one. */
const UNNAMED_LEARNER = 'Open WebUI user';
const NAME_CHARACTERS_MAXIMUM = 200;

export class FrontEndPersonService {
  constructor(private readonly db: Kysely<Database>) {}

  /** The front end's call, now made as the person it names (same request id, same key). */
  async actAs(frontEnd: CallContext, person: ForwardedPerson): Promise<CallContext> {
    const known = await findUserByEmail(this.db, person.email);
    const policies = known === undefined ? await findOrganizationPolicies(this.db, frontEnd.identity.organizationId) : undefined;
    const decision = decideForwardedPerson(
      frontEnd.identity,
      known && { organizationId: known.organization_id, isSystemAdmin: known.is_system_admin === 1, disabled: known.disabled === 1 },
      policies?.frontEndCreatesLearners === true,
    );
    const user = decision === 'act_as' && known !== undefined ? known : await this.createLearner(frontEnd, person);
    return { identity: identityOf(user, 'api_key', frontEnd.identity.credentialId), requestId: frontEnd.requestId };
  }

  private async createLearner(frontEnd: CallContext, person: ForwardedPerson): Promise<UserWithRole> {
    const organizationId = frontEnd.identity.organizationId;
    try {
      const id = await this.db.transaction().execute(async (transaction) => {
        const created = await insertUser(transaction, {
          organizationId,
          email: person.email,
          name: person.name?.slice(0, NAME_CHARACTERS_MAXIMUM) || UNNAMED_LEARNER,
          passwordHash: null,
          role: 'learner',
          isSystemAdmin: false,
        });
        await appendAuditEntry(transaction, {
          actorUserId: frontEnd.identity.userId,
          organizationId,
          action: 'front_end.learner_create',
          targetType: 'user',
          targetId: created,
          requestId: frontEnd.requestId,
        });
        return created;
      });
      return (await findUserById(this.db, id))!;
    } catch (error) {
      // Racing first requests for the same new person: one insert wins, the others act as it.
      if (!isUniqueViolation(error)) throw error;
      const winner = await findUserByEmail(this.db, person.email);
      if (winner === undefined) throw error;
      decideForwardedPerson(
        frontEnd.identity,
        { organizationId: winner.organization_id, isSystemAdmin: winner.is_system_admin === 1, disabled: winner.disabled === 1 },
        true,
      );
      return winner;
    }
  }
}
