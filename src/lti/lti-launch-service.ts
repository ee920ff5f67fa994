/**
 * What every LTI launch does once its sender is proven (LTI 1.1 by an OAuth signature, LTI 1.3 by
 * a platform's id_token): find or create the Merino user the LTI user is, find or create the
 * resource link and its assistant binding, open a session and record the launch, then say where
 * the browser goes. Also the LTI 1.1 launch itself, verified here before it gets that far.
 */
import { createHash } from 'node:crypto';
import type { Kysely } from 'kysely';
import { assistantFacts } from '../assistants/assistant-view.js';
import type { Authenticator } from '../auth/authenticator.js';
import { decideAssistant, isLockedOutBySuspension, ltiInstructorRole } from '../auth/permissions.js';
import { identityOf } from '../auth/authenticator.js';
import type { Identity } from '../auth/identity.js';
import type { SecretBox } from '../secrets/secret-box.js';
import { findAssistant } from '../store/assistants-repository.js';
import { appendAuditEntry } from '../store/audit-log-repository.js';
import {
  findLaunchOfSession,
  findLtiUserId,
  findOrCreateLtiLink,
  insertLtiLaunch,
  insertLtiUser,
  bindLtiLink,
} from '../store/lti-launches-repository.js';
import { findLtiConsumer, findLtiConsumerByKey, findLtiPlatform } from '../store/lti-registrations-repository.js';
import { purgeExpiredReplayGuards, spendNonce } from '../store/lti-replay-repository.js';
import { findOrganizationPolicies } from '../store/organization-settings-repository.js';
import type { Database } from '../store/schema.js';
import { findUserByEmail, findUserById, insertUser, type UserWithRole } from '../store/users-repository.js';
import { LtiLaunchRefusal } from './lti-launch-refusal.js';
import { signatureMatches, type ParameterPairs } from './oauth-signature.js';

/** Longest value taken from a launch parameter; longer ones make the launch malformed. */
const PARAMETER_LENGTH_MAXIMUM = 1_000;
/** Purging expired nonces runs at most this often per process. */
const PURGE_INTERVAL_MILLISECONDS = 600_000;
const INSTRUCTOR_ROLES = new Set(['instructor', 'administrator', 'contentdeveloper', 'teachingassistant', 'mentor']);

/** Where a launch's users and links belong: `consumer:<id>` or `platform:<id>`. */
export type LaunchSource = `consumer:${number}` | `platform:${number}`;

/** Who a proven launch names, in the words both LTI versions share. */
export interface LaunchPerson {
  organizationId: number;
  source: LaunchSource;
  ltiUserId: string;
  name: string | undefined;
  email: string | undefined;
  instructor: boolean;
  requestId: string | null;
  /** How the launch was proven, for the audit log: `lti-1.1` or `lti-1.3`. */
  via: string;
}

/** A launch whose sender is proven, with the resource link it opens. */
export interface ProvenLaunch extends LaunchPerson {
  resourceLinkId: string;
  title: string;
  /** The assistant the launch itself names (`custom_assistant_id`, or the 1.3 custom claim `assistant_id`). */
  assistantId: string | undefined;
  returnUrl: string | undefined;
}

export type LaunchDestination =
  { kind: 'chat'; assistantId: number } | { kind: 'set_up'; activityId: number } | { kind: 'not_set_up'; activityId: number };

export interface LaunchOutcome {
  token: string;
  lifetimeSeconds: number;
  destination: LaunchDestination;
  /** The consumer's or platform's origins allowed to frame what the launch answers. */
  frameOrigins: string[];
}

export interface ClassicLaunch {
  method: string;
  /** The URL as the consumer addressed it (scheme and host as the proxy says, with TRUST_PROXY). */
  url: string;
  bodyParameters: ParameterPairs;
  requestId: string | null;
}

export interface LtiSessionFacts {
  activityId: number;
  returnUrl: string | null;
  instructor: boolean;
  frameOrigins: string[];
}

export interface LtiLaunchServiceOptions {
  db: Kysely<Database>;
  secrets: SecretBox;
  authenticator: Authenticator;
  timestampSkewSeconds: number;
  sessionTtlHours: number;
}

/** Whether any LTI role (1.1 short names or URNs, 1.3 URIs) is a teaching one. */
export function isInstructorRole(roles: readonly string[]): boolean {
  return roles.some((role) => {
    const name = role.slice(Math.max(role.lastIndexOf('#'), role.lastIndexOf('/')) + 1).toLowerCase();
    return INSTRUCTOR_ROLES.has(name);
  });
}

/** A return URL kept only when it is an http(s) URL, so the "Back to course" link can never run script. */
export function safeReturnUrl(value: string | undefined): string | undefined {
  if (value === undefined || !URL.canParse(value)) return undefined;
  const { protocol } = new URL(value);
  return protocol === 'http:' || protocol === 'https:' ? value : undefined;
}

function singleParameters(pairs: ParameterPairs): Map<string, string> {
  const parameters = new Map<string, string>();
  for (const [name, value] of pairs) {
    if (parameters.has(name)) throw new LtiLaunchRefusal('malformed_launch', `The launch names ${name} more than once.`);
    if (value.length > PARAMETER_LENGTH_MAXIMUM) throw new LtiLaunchRefusal('malformed_launch', `The launch's ${name} is too long.`);
    parameters.set(name, value);
  }
  return parameters;
}

function requiredParameter(parameters: Map<string, string>, name: string): string {
  const value = parameters.get(name);
  if (value === undefined || value.trim() === '') throw new LtiLaunchRefusal('malformed_launch', `The launch has no ${name}.`);
  return value;
}

function parseFrameOrigins(stored: string): string[] {
  const parsed = JSON.parse(stored) as unknown;
  return Array.isArray(parsed) ? parsed.filter((origin): origin is string => typeof origin === 'string') : [];
}

export class LtiLaunchService {
  private lastPurge = 0;

  constructor(private readonly options: LtiLaunchServiceOptions) {}

  private get db(): Kysely<Database> {
    return this.options.db;
  }

  /** Verifies an LTI 1.1 basic launch (consumer, signature, timestamp, single-use nonce), then completes it. */
  async launchClassic(launch: ClassicLaunch): Promise<LaunchOutcome> {
    try {
      return await this.completeLaunch(await this.verifyClassic(launch));
    } catch (error) {
      if (error instanceof LtiLaunchRefusal) await this.recordRefusal(error, launch.requestId, 'lti-1.1');
      throw error;
    }
  }

  private async verifyClassic(launch: ClassicLaunch): Promise<ProvenLaunch> {
    const parameters = singleParameters(launch.bodyParameters);
    if (parameters.get('lti_message_type') !== 'basic-lti-launch-request')
      throw new LtiLaunchRefusal('malformed_launch', 'Merino accepts basic-lti-launch-request messages here.');
    if (parameters.get('oauth_signature_method') !== 'HMAC-SHA1')
      throw new LtiLaunchRefusal('malformed_launch', 'The launch must be signed with HMAC-SHA1.');
    const consumer = await findLtiConsumerByKey(this.db, requiredParameter(parameters, 'oauth_consumer_key'));
    if (!consumer) throw new LtiLaunchRefusal('unknown_consumer');
    const secret = this.options.secrets.decrypt(consumer.secret_encrypted);
    if (!signatureMatches(launch, secret, requiredParameter(parameters, 'oauth_signature'))) throw new LtiLaunchRefusal('bad_signature');
    const timestamp = Number(requiredParameter(parameters, 'oauth_timestamp'));
    const skewMilliseconds = this.options.timestampSkewSeconds * 1000;
    const now = Date.now();
    if (!Number.isSafeInteger(timestamp) || Math.abs(timestamp * 1000 - now) > skewMilliseconds)
      throw new LtiLaunchRefusal('stale_timestamp');
    // Kept past the window in which its timestamp is accepted, so it can never be accepted twice.
    await this.spend(`consumer:${consumer.id}`, requiredParameter(parameters, 'oauth_nonce'), timestamp * 1000 + skewMilliseconds * 2);
    const roles = (parameters.get('roles') ?? '').split(',').map((role) => role.trim());
    const given = [parameters.get('lis_person_name_given'), parameters.get('lis_person_name_family')].filter(Boolean).join(' ');
    return {
      organizationId: consumer.organization_id,
      source: `consumer:${consumer.id}`,
      ltiUserId: requiredParameter(parameters, 'user_id'),
      name: parameters.get('lis_person_name_full') ?? (given === '' ? undefined : given),
      email: parameters.get('lis_person_contact_email_primary'),
      instructor: isInstructorRole(roles),
      resourceLinkId: requiredParameter(parameters, 'resource_link_id'),
      title: parameters.get('resource_link_title') ?? '',
      assistantId: parameters.get('custom_assistant_id'),
      returnUrl: parameters.get('launch_presentation_return_url'),
      requestId: launch.requestId,
      via: 'lti-1.1',
    };
  }

  /** Records a nonce as used in the store (all processes see it); a second use is refused. */
  async spend(scope: string, nonce: string, expiresAt: number): Promise<void> {
    const now = Date.now();
    if (now - this.lastPurge > PURGE_INTERVAL_MILLISECONDS) {
      this.lastPurge = now;
      await purgeExpiredReplayGuards(this.db, now);
    }
    if (!(await spendNonce(this.db, scope, nonce, expiresAt))) throw new LtiLaunchRefusal('reused_nonce');
  }

  async recordRefusal(refusal: LtiLaunchRefusal, requestId: string | null, via: string): Promise<void> {
    await appendAuditEntry(this.db, {
      actorUserId: null,
      organizationId: null,
      action: 'lti.launch_refused',
      targetType: 'lti_launch',
      targetId: null,
      details: { reason: refusal.reason, via },
      requestId,
    });
  }

  /** Users, link, binding, session and launch record of a proven launch; where the browser goes next. */
  async completeLaunch(launch: ProvenLaunch): Promise<LaunchOutcome> {
    const user = await this.userOf(launch);
    if (user.disabled === 1) throw new LtiLaunchRefusal('account_disabled');
    if (isLockedOutBySuspension({ isSystemAdmin: user.is_system_admin === 1, organizationStatus: user.organization_status })) {
      throw new LtiLaunchRefusal('organization_suspended');
    }
    const link = await findOrCreateLtiLink(this.db, {
      organizationId: launch.organizationId,
      source: launch.source,
      resourceLinkId: launch.resourceLinkId,
      title: launch.title.slice(0, 200),
    });
    let assistantId = link.assistant_id;
    if (launch.assistantId !== undefined) {
      assistantId = await this.usableAssistant(user, launch.assistantId);
      if (link.assistant_id !== assistantId) await bindLtiLink(this.db, link.id, assistantId, null);
    } else if (assistantId !== null && !(await this.mayChat(user, assistantId))) {
      throw new LtiLaunchRefusal('unknown_assistant');
    }
    const session = await this.options.authenticator.openSession(user, launch.via, launch.requestId);
    await insertLtiLaunch(this.db, {
      linkId: link.id,
      userId: user.id,
      sessionId: session.sessionId,
      instructor: launch.instructor,
      returnUrl: safeReturnUrl(launch.returnUrl) ?? null,
    });
    const destination: LaunchDestination =
      assistantId !== null
        ? { kind: 'chat', assistantId }
        : launch.instructor
          ? { kind: 'set_up', activityId: link.id }
          : { kind: 'not_set_up', activityId: link.id };
    const frameOrigins = (await this.sessionFacts(session.sessionId))?.frameOrigins ?? [];
    return { token: session.token, lifetimeSeconds: this.options.sessionTtlHours * 3600, destination, frameOrigins };
  }

  /** A session for a teacher who is not opening a resource link (an LTI 1.3 deep-linking request). */
  async openTeacherSession(person: LaunchPerson): Promise<{ token: string; teacher: Identity }> {
    const user = await this.userOf(person);
    if (user.disabled === 1) throw new LtiLaunchRefusal('account_disabled');
    if (isLockedOutBySuspension({ isSystemAdmin: user.is_system_admin === 1, organizationStatus: user.organization_status })) {
      throw new LtiLaunchRefusal('organization_suspended');
    }
    const session = await this.options.authenticator.openSession(user, person.via, person.requestId);
    return { token: session.token, teacher: identityOf(user, 'session', session.sessionId) };
  }

  private async mayChat(user: UserWithRole, assistantId: number): Promise<boolean> {
    const record = await findAssistant(this.db, assistantId, user.id);
    return record !== undefined && decideAssistant(identityOf(user, 'session', 0), assistantFacts(record), 'chat').allowed;
  }

  private async usableAssistant(user: UserWithRole, named: string): Promise<number> {
    const id = Number(named.trim());
    if (!Number.isSafeInteger(id) || id <= 0 || !(await this.mayChat(user, id))) throw new LtiLaunchRefusal('unknown_assistant');
    return id;
  }

  /** The Merino user of this LTI user, created on first launch without a password. */
  private async userOf(launch: LaunchPerson): Promise<UserWithRole> {
    const known = await findLtiUserId(this.db, launch.source, launch.ltiUserId);
    if (known !== undefined) {
      const user = await findUserById(this.db, known);
      if (user) return user;
    }
    const policies = await findOrganizationPolicies(this.db, launch.organizationId);
    const role = launch.instructor ? ltiInstructorRole(policies?.ltiInstructorsCreate === true) : 'learner';
    const email = await this.emailFor(launch);
    const userId = await this.db.transaction().execute(async (transaction) => {
      const id = await insertUser(transaction, {
        organizationId: launch.organizationId,
        email,
        name: (launch.name ?? '').trim().slice(0, 200) || 'LTI user',
        passwordHash: null,
        role,
        isSystemAdmin: false,
      });
      await insertLtiUser(transaction, launch.source, launch.ltiUserId, id);
      await appendAuditEntry(transaction, {
        actorUserId: null,
        organizationId: launch.organizationId,
        action: 'lti.user_create',
        targetType: 'user',
        targetId: id,
        details: { source: launch.source, role },
        requestId: launch.requestId,
      });
      return id;
    });
    return (await findUserById(this.db, userId))!;
  }

  /**
   * The launch's email when no account has it yet; otherwise (or without one) an address of its
   * own under `.invalid`. A launch never signs anyone into an existing account by naming its email.
   */
  private async emailFor(launch: LaunchPerson): Promise<string> {
    const given = launch.email?.trim().toLowerCase();
    if (given !== undefined && /^[^\s@]{1,100}@[^\s@]{1,150}$/.test(given) && !(await findUserByEmail(this.db, given))) return given;
    const digest = createHash('sha256').update(`${launch.source}\n${launch.ltiUserId}`).digest('hex').slice(0, 24);
    return `lti-${digest}@lti.invalid`;
  }

  /** What pages and `GET /api/me` need to know about a session an LTI launch opened. */
  async sessionFacts(sessionId: number): Promise<LtiSessionFacts | undefined> {
    const launch = await findLaunchOfSession(this.db, sessionId);
    if (!launch) return undefined;
    const [kind, id] = launch.source.split(':');
    const registration = kind === 'consumer' ? await findLtiConsumer(this.db, Number(id)) : await findLtiPlatform(this.db, Number(id));
    return {
      activityId: launch.linkId,
      returnUrl: launch.returnUrl,
      instructor: launch.instructor,
      frameOrigins: registration ? parseFrameOrigins(registration.frame_origins) : [],
    };
  }
}
