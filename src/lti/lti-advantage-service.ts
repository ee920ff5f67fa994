/**
 * LTI 1.3 (LTI Advantage) as a tool: OIDC login initiation (state and nonce kept in the store,
 * bound to the browser that started the login, see lti-browser-binding.ts) and the launch, whose
 * id_token lti-id-token.ts verifies; a deep-linking request goes on to lti-deep-linking.ts.
 */
import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import { findLtiPlatform, findLtiPlatformsByIssuer } from '../store/lti-registrations-repository.js';
import { findLoginState, insertLoginState, takeLoginState } from '../store/lti-replay-repository.js';
import type { Database, LtiPlatformRow } from '../store/schema.js';
import { browserSecretMatches, newBrowserSecret, storageKeyOf, storageTargetOf } from './lti-browser-binding.js';
import {
  LtiDeepLinking,
  type DeepLinkingAnswer,
  type LtiDeepLinkingOptions,
  type DeepLinkingPick,
  type DeepLinkingStart,
} from './lti-deep-linking.js';
import { CLAIM, LtiIdTokenVerifier, type LtiIdTokenOptions, objectClaim, stringClaim, text } from './lti-id-token.js';
import { LtiLaunchRefusal } from './lti-launch-refusal.js';
import { isInstructorRole, type LaunchOutcome } from './lti-launch-service.js';

const RESOURCE_LINK_REQUEST = 'LtiResourceLinkRequest';
const DEEP_LINKING_REQUEST = 'LtiDeepLinkingRequest';

export interface LoginInitiation {
  iss: string | undefined;
  login_hint: string | undefined;
  target_link_uri: string | undefined;
  lti_message_hint: string | undefined;
  client_id: string | undefined;
  lti_deployment_id: string | undefined;
  /** The platform's storage frame for the LTI postMessage API, when it offers one. */
  lti_storage_target: string | undefined;
}

/** Where the platform keeps a value for this tool's origin (LTI Client Side postMessages, platform storage). */
export interface PlatformStorage {
  /** `_parent` or the name of a frame of the parent window. */
  target: string;
  /** The origin of the platform's authorization URL: where the messages go, and the only origin answers are taken from. */
  platformOrigin: string;
  key: string;
}

export interface LoginAnswer {
  /** The platform's authorization URL, carrying state and nonce. */
  authorizationUrl: string;
  state: string;
  /** What the browser must present at the launch; the store keeps only its hash. */
  browserSecret: string;
  lifetimeSeconds: number;
  /** Set when the platform offered its storage: the secret is kept there too, for browsers that drop the cookie. */
  storage: PlatformStorage | undefined;
  frameOrigins: string[];
}

/** A launch that came without the login's secret, from a login that kept it in the platform's storage: it is read back from there first. */
export interface PlatformStorageCheck {
  kind: 'platform_storage';
  storage: PlatformStorage;
  frameOrigins: string[];
}

export type AdvantageLaunchOutcome = (LaunchOutcome & { kind: 'launch' }) | DeepLinkingStart | PlatformStorageCheck;

/** What the id_token's verification and deep linking need, together. */
export interface LtiAdvantageOptions extends LtiIdTokenOptions, LtiDeepLinkingOptions {}

function platformStorage(platform: LtiPlatformRow, target: string, state: string): PlatformStorage {
  return { target, platformOrigin: new URL(platform.auth_login_url).origin, key: storageKeyOf(state) };
}

export interface LaunchInput {
  idToken: string | undefined;
  state: string | undefined;
  /** The login's secret as this browser presents it; undefined when it presents none. */
  browserSecret: string | undefined;
  requestId: string | null;
}

export class LtiAdvantageService {
  private readonly tokens: LtiIdTokenVerifier;
  private readonly deepLinking: LtiDeepLinking;

  constructor(private readonly options: LtiAdvantageOptions) {
    this.tokens = new LtiIdTokenVerifier(options);
    this.deepLinking = new LtiDeepLinking(options);
  }

  private get db(): Kysely<Database> {
    return this.options.db;
  }

  /**
   * Step 1 of the launch: remembers a state and a nonce, bound to a secret for the browser (only its
   * hash is stored), and answers the platform's authorization URL to send the browser to.
   */
  async login(initiation: LoginInitiation, redirectUri: string): Promise<LoginAnswer> {
    const { iss, login_hint: loginHint, target_link_uri: targetLinkUri } = initiation;
    if (!iss || !loginHint || !targetLinkUri)
      throw new LtiLaunchRefusal('malformed_launch', 'An LTI 1.3 login must name iss, login_hint and target_link_uri.');
    const candidates = (await findLtiPlatformsByIssuer(this.db, iss)).filter(
      (platform) => initiation.client_id === undefined || platform.client_id === initiation.client_id,
    );
    const [platform] = candidates;
    if (!platform || candidates.length > 1) throw new LtiLaunchRefusal('unknown_platform');
    const state = randomBytes(24).toString('base64url');
    const nonce = randomBytes(24).toString('base64url');
    const browser = newBrowserSecret();
    const storageTarget = storageTargetOf(initiation.lti_storage_target) ?? null;
    await insertLoginState(this.db, {
      state,
      platformId: platform.id,
      nonce,
      expiresAt: Date.now() + this.options.loginStateSeconds * 1000,
      browserSecretHash: browser.hash,
      storageTarget,
    });
    const authorization = new URL(platform.auth_login_url);
    const parameters: Record<string, string | undefined> = {
      scope: 'openid',
      response_type: 'id_token',
      response_mode: 'form_post',
      prompt: 'none',
      client_id: platform.client_id,
      redirect_uri: redirectUri,
      login_hint: loginHint,
      lti_message_hint: initiation.lti_message_hint,
      state,
      nonce,
    };
    for (const [name, value] of Object.entries(parameters)) if (value !== undefined) authorization.searchParams.set(name, value);
    return {
      authorizationUrl: authorization.toString(),
      state,
      browserSecret: browser.secret,
      lifetimeSeconds: this.options.loginStateSeconds,
      storage: storageTarget === null ? undefined : platformStorage(platform, storageTarget, state),
      frameOrigins: JSON.parse(platform.frame_origins) as string[],
    };
  }

  /**
   * Step 2: the platform's form_post with `id_token` and `state`, and the login's secret the
   * browser presents (its cookie, or the value read back from the platform's storage).
   */
  async launch(input: LaunchInput): Promise<AdvantageLaunchOutcome> {
    try {
      return await this.verifyAndComplete(input);
    } catch (error) {
      if (error instanceof LtiLaunchRefusal) await this.options.launches.recordRefusal(error, input.requestId, 'lti-1.3');
      throw error;
    }
  }

  private async verifyAndComplete(input: LaunchInput): Promise<AdvantageLaunchOutcome> {
    if (!input.idToken || !input.state) throw new LtiLaunchRefusal('malformed_launch', 'The launch must carry id_token and state.');
    const login = await findLoginState(this.db, input.state, Date.now());
    if (!login) throw new LtiLaunchRefusal('unknown_state');
    if (input.browserSecret === undefined && login.storageTarget !== null) {
      const platform = await findLtiPlatform(this.db, login.platformId);
      if (!platform) throw new LtiLaunchRefusal('unknown_platform');
      return {
        kind: 'platform_storage',
        storage: platformStorage(platform, login.storageTarget, input.state),
        frameOrigins: JSON.parse(platform.frame_origins) as string[],
      };
    }
    if (input.browserSecret === undefined || !browserSecretMatches(input.browserSecret, login.browserSecretHash))
      throw new LtiLaunchRefusal('unbound_state');
    const platform = await this.tokens.platformOf(input.idToken, login.platformId);
    const payload = await this.tokens.verifiedToken(input.idToken, platform);
    if (payload.nonce !== login.nonce) throw new LtiLaunchRefusal('reused_nonce');
    // Taken only now: a launch with a forged or broken token leaves the state for the browser's real launch.
    if (!(await takeLoginState(this.db, input.state, Date.now()))) throw new LtiLaunchRefusal('unknown_state');
    await this.options.launches.spend(
      `platform:${platform.id}`,
      login.nonce,
      (payload.exp ?? 0) * 1000 + this.options.tokenClockSkewSeconds * 2000,
    );
    const deploymentId = stringClaim(payload, `${CLAIM}deployment_id`);
    if (deploymentId === undefined || !(JSON.parse(platform.deployment_ids) as string[]).includes(deploymentId))
      throw new LtiLaunchRefusal('unknown_deployment');
    if (stringClaim(payload, `${CLAIM}version`) !== '1.3.0')
      throw new LtiLaunchRefusal('malformed_launch', 'The launch must be LTI version 1.3.0.');
    const roles = payload[`${CLAIM}roles`];
    if (!Array.isArray(roles) || roles.some((role) => typeof role !== 'string'))
      throw new LtiLaunchRefusal('malformed_launch', 'The launch must carry its roles claim.');
    const subject = payload.sub;
    if (typeof subject !== 'string' || subject === '' || subject.length > 255)
      throw new LtiLaunchRefusal('malformed_launch', 'The launch must name its user (sub).');
    const messageType = stringClaim(payload, `${CLAIM}message_type`);
    const instructor = isInstructorRole(roles as string[]);
    const proven = {
      organizationId: platform.organization_id,
      source: `platform:${platform.id}` as const,
      ltiUserId: subject,
      name: stringClaim(payload, 'name'),
      email: stringClaim(payload, 'email'),
      instructor,
      requestId: input.requestId,
      via: 'lti-1.3',
    };
    if (messageType === DEEP_LINKING_REQUEST) return this.deepLinking.start({ payload, platform, deploymentId, proven });
    if (messageType !== RESOURCE_LINK_REQUEST)
      throw new LtiLaunchRefusal('malformed_launch', 'Merino accepts LtiResourceLinkRequest and LtiDeepLinkingRequest messages.');
    const resourceLink = objectClaim(payload, `${CLAIM}resource_link`);
    const resourceLinkId = text(resourceLink.id);
    if (!resourceLinkId) throw new LtiLaunchRefusal('malformed_launch', 'The launch has no resource link id.');
    const outcome = await this.options.launches.completeLaunch({
      ...proven,
      resourceLinkId,
      title: text(resourceLink.title) ?? '',
      assistantId: text(objectClaim(payload, `${CLAIM}custom`).assistant_id),
      returnUrl: text(objectClaim(payload, `${CLAIM}launch_presentation`).return_url),
    });
    return { ...outcome, kind: 'launch' };
  }

  /** The signed LtiDeepLinkingResponse naming the assistant the teacher picked, and where to post it. */
  answerDeepLinking(input: DeepLinkingPick): Promise<DeepLinkingAnswer> {
    return this.deepLinking.answer(input);
  }
}
