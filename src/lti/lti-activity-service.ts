/**
 * LTI activities (resource links) as teachers see them: the set-up that binds an unset link to an
 * assistant, and the dashboard of who opened it and how much it was used. Whoever launched the
 * activity as Instructor, and the organization's admins, may do both (permissions.ts decides).
 */
import type { Kysely } from 'kysely';
import { assistantFacts } from '../assistants/assistant-view.js';
import { auditEntryOf, type CallContext } from '../auth/call-context.js';
import type { Identity } from '../auth/identity.js';
import { assistantListScope, decideAssistant, requireLtiActivityTeaching } from '../auth/permissions.js';
import { AppError } from '../errors/app-error.js';
import { findAssistant, listAssistants } from '../store/assistants-repository.js';
import { appendAuditEntry } from '../store/audit-log-repository.js';
import { activityUsage, bindLtiLink, findLtiLink, launchedAsInstructor, listActivityLearners } from '../store/lti-launches-repository.js';
import type { Database, LtiLinkRow } from '../store/schema.js';
import type { ActivityDashboard, ActivityView } from './lti-activity-schemas.js';

/** How many assistants a picker offers; the newest first. */
const CHOICES_MAXIMUM = 200;

export interface AssistantChoice {
  id: number;
  name: string;
  description: string;
}

function activityView(link: LtiLinkRow): ActivityView {
  return { id: link.id, title: link.title, assistant_id: link.assistant_id };
}

export class LtiActivityService {
  constructor(private readonly db: Kysely<Database>) {}

  private async teachable(identity: Identity, id: number): Promise<LtiLinkRow> {
    const link = await findLtiLink(this.db, id);
    if (!link) throw new AppError('not_found', 'Activity not found.');
    requireLtiActivityTeaching(identity, {
      organizationId: link.organization_id,
      launchedAsInstructor: await launchedAsInstructor(this.db, link.id, identity.userId),
    });
    return link;
  }

  /** The assistants a teacher may put behind an activity: their own, those shared with them, their organization's published ones. */
  async choices(identity: Identity): Promise<AssistantChoice[]> {
    const page = await listAssistants(this.db, assistantListScope(identity), identity.userId, {
      limit: CHOICES_MAXIMUM,
      offset: 0,
      search: undefined,
      type: undefined,
    });
    return page.items
      .filter((record) => record.organization_id === identity.organizationId || identity.isSystemAdmin)
      .map((record) => ({ id: record.id, name: record.name, description: record.description }));
  }

  async mayUse(identity: Identity, assistantId: number): Promise<boolean> {
    const record = await findAssistant(this.db, assistantId, identity.userId);
    return record !== undefined && decideAssistant(identity, assistantFacts(record), 'chat').allowed;
  }

  async setUp(context: CallContext, id: number): Promise<{ activity: ActivityView; choices: AssistantChoice[] }> {
    const link = await this.teachable(context.identity, id);
    return { activity: activityView(link), choices: await this.choices(context.identity) };
  }

  async bind(context: CallContext, id: number, assistantId: number): Promise<ActivityView> {
    const link = await this.teachable(context.identity, id);
    if (!(await this.mayUse(context.identity, assistantId)))
      throw new AppError('not_found', 'Assistant not found.', { param: 'assistant_id' });
    await this.db.transaction().execute(async (transaction) => {
      await bindLtiLink(transaction, link.id, assistantId, context.identity.userId);
      await appendAuditEntry(
        transaction,
        auditEntryOf(context, { type: 'lti_activity', id: link.id, organizationId: link.organization_id }, 'lti.activity_bind', {
          assistant_id: assistantId,
        }),
      );
    });
    return activityView((await findLtiLink(this.db, id))!);
  }

  /** Whose chats the dashboard may show: the activity's organization and the users who opened it; the dashboard's rule. */
  async chatAudience(context: CallContext, id: number): Promise<{ organizationId: number; learnerUserIds: number[] }> {
    const link = await this.teachable(context.identity, id);
    const learners = await listActivityLearners(this.db, link.id);
    return { organizationId: link.organization_id, learnerUserIds: learners.map((learner) => learner.userId) };
  }

  async dashboard(context: CallContext, id: number): Promise<ActivityDashboard> {
    const link = await this.teachable(context.identity, id);
    const learners = await listActivityLearners(this.db, link.id);
    const usage =
      link.assistant_id === null
        ? { requests: 0, promptTokens: 0, completionTokens: 0, chats: 0, messages: 0 }
        : await activityUsage(
            this.db,
            link.assistant_id,
            learners.map((learner) => learner.userId),
          );
    return {
      activity: activityView(link),
      learners: learners.map((learner) => ({ name: learner.name, launches: learner.launches, last_visit: learner.lastVisit })),
      usage: {
        requests: usage.requests,
        prompt_tokens: usage.promptTokens,
        completion_tokens: usage.completionTokens,
        chats: usage.chats,
        messages: usage.messages,
      },
    };
  }
}
