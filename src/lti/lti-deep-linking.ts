/**
 * LTI 1.3 deep linking: a teacher's LtiDeepLinkingRequest opens Merino's assistant picker with a
 * context signed by the tool (platform, deployment, return URL), and the teacher's pick goes back to
 * the platform as a signed LtiDeepLinkingResponse.
 */
import { randomBytes } from 'node:crypto';
import { createLocalJWKSet, jwtVerify, SignJWT, type JWTPayload } from 'jose';
import type { Kysely } from 'kysely';
import type { Identity } from '../auth/identity.js';
import { findLtiPlatform } from '../store/lti-registrations-repository.js';
import type { Database, LtiPlatformRow } from '../store/schema.js';
import { CLAIM, objectClaim, text } from './lti-id-token.js';
import { LtiLaunchRefusal } from './lti-launch-refusal.js';
import type { LaunchPerson, LtiLaunchService } from './lti-launch-service.js';
import { TOOL_KEY_ALGORITHM, type LtiToolKeys } from './lti-tool-keys.js';

const DEEP_LINKING_CLAIM = 'https://purl.imsglobal.org/spec/lti-dl/claim/';
const DEEP_LINKING_CONTEXT_AUDIENCE = 'merino:lti-deep-linking';
/** How long a deep-linking response is valid for the platform. */
const RESPONSE_LIFETIME_SECONDS = 300;

export interface DeepLinkingStart {
  kind: 'deep_linking';
  token: string;
  lifetimeSeconds: number;
  teacher: Identity;
  /** Signed by the tool: which platform, deployment and return URL the teacher's answer goes to. */
  context: string;
  /** The platform's origins allowed to frame the picker. */
  frameOrigins: string[];
}

export interface DeepLinkingAnswer {
  returnUrl: string;
  jwt: string;
  /** The platform's origins allowed to frame the page that posts the answer back. */
  frameOrigins: string[];
}

/** The assistant a teacher picked, with the context the picker was opened with. */
export interface DeepLinkingPick {
  context: string;
  userId: number;
  assistantId: number;
  title: string;
  launchUrl: string;
}

export interface DeepLinkingRequest {
  payload: JWTPayload;
  platform: LtiPlatformRow;
  deploymentId: string;
  proven: LaunchPerson;
}

export interface LtiDeepLinkingOptions {
  db: Kysely<Database>;
  launches: LtiLaunchService;
  toolKeys: LtiToolKeys;
  loginStateSeconds: number;
  sessionTtlHours: number;
}

export class LtiDeepLinking {
  constructor(private readonly options: LtiDeepLinkingOptions) {}

  /** A teacher's LtiDeepLinkingRequest: a session for the picker, and the signed context its answer needs. */
  async start({ payload, platform, deploymentId, proven }: DeepLinkingRequest): Promise<DeepLinkingStart> {
    const settings = objectClaim(payload, `${DEEP_LINKING_CLAIM}deep_linking_settings`);
    const returnUrl = text(settings.deep_link_return_url);
    if (!returnUrl || !URL.canParse(returnUrl))
      throw new LtiLaunchRefusal('malformed_launch', 'The deep-linking request has no return URL.');
    if (!proven.instructor) throw new LtiLaunchRefusal('malformed_launch', 'Only a teacher can add an activity.');
    const session = await this.options.launches.openTeacherSession(proven);
    const signing = await this.options.toolKeys.signingKey();
    const context = await new SignJWT({
      platform_id: platform.id,
      deployment_id: deploymentId,
      return_url: returnUrl,
      ...(typeof settings.data === 'string' && { data: settings.data }),
    })
      .setProtectedHeader({ alg: TOOL_KEY_ALGORITHM, kid: signing.kid })
      .setAudience(DEEP_LINKING_CONTEXT_AUDIENCE)
      .setSubject(String(session.teacher.userId))
      .setIssuedAt()
      .setExpirationTime(`${this.options.loginStateSeconds}s`)
      .sign(signing.privateKey);
    return {
      kind: 'deep_linking',
      token: session.token,
      lifetimeSeconds: this.options.sessionTtlHours * 3600,
      teacher: session.teacher,
      context,
      frameOrigins: JSON.parse(platform.frame_origins) as string[],
    };
  }

  /** The signed LtiDeepLinkingResponse naming the assistant the teacher picked, and where to post it. */
  async answer(input: DeepLinkingPick): Promise<DeepLinkingAnswer> {
    let context: JWTPayload;
    try {
      ({ payload: context } = await jwtVerify(input.context, createLocalJWKSet(await this.options.toolKeys.jwks()), {
        audience: DEEP_LINKING_CONTEXT_AUDIENCE,
        subject: String(input.userId),
        algorithms: [TOOL_KEY_ALGORITHM],
        // Signed by this tool for one picker: never dated in the future, never older than a login state.
        maxTokenAge: this.options.loginStateSeconds,
        requiredClaims: ['exp', 'iat'],
      }));
    } catch {
      throw new LtiLaunchRefusal('unknown_state', 'This activity picker expired or belongs to someone else. Start again from your course.');
    }
    const platform = await findLtiPlatform(this.options.db, Number(context.platform_id));
    if (!platform) throw new LtiLaunchRefusal('unknown_platform');
    const signing = await this.options.toolKeys.signingKey();
    const jwt = await new SignJWT({
      nonce: randomBytes(16).toString('base64url'),
      [`${CLAIM}message_type`]: 'LtiDeepLinkingResponse',
      [`${CLAIM}version`]: '1.3.0',
      [`${CLAIM}deployment_id`]: context.deployment_id,
      [`${DEEP_LINKING_CLAIM}content_items`]: [
        { type: 'ltiResourceLink', title: input.title, url: input.launchUrl, custom: { assistant_id: String(input.assistantId) } },
      ],
      ...(typeof context.data === 'string' && { [`${DEEP_LINKING_CLAIM}data`]: context.data }),
    })
      .setProtectedHeader({ alg: TOOL_KEY_ALGORITHM, kid: signing.kid, typ: 'JWT' })
      .setIssuer(platform.client_id)
      .setAudience(platform.issuer)
      .setIssuedAt()
      .setExpirationTime(`${RESPONSE_LIFETIME_SECONDS}s`)
      .sign(signing.privateKey);
    return { returnUrl: String(context.return_url), jwt, frameOrigins: JSON.parse(platform.frame_origins) as string[] };
  }
}
