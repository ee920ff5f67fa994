/**
 * LTI 1.3 (LTI Advantage) as a tool: OIDC login initiation (state and nonce kept in the store,
 * bound to the browser that started the login, see lti-browser-binding.ts), the launch (the platform's id_token verified with `jose` against its JWKS, fetched and cached,
 * and fetched again when a token names an unknown key), and deep linking (the teacher picks an
 * assistant; Merino answers the platform with a signed LtiDeepLinkingResponse).
 */
import { randomBytes } from 'node:crypto';
import {
  createLocalJWKSet,
  createRemoteJWKSet,
  customFetch,
  decodeJwt,
  importSPKI,
  jwtVerify,
  SignJWT,
  type JWTPayload,
  type JWTVerifyGetKey,
  type CryptoKey,
} from 'jose';
import type { Kysely } from 'kysely';
import type { Identity } from '../auth/identity.js';
import type { OutboundGuard } from '../outbound/outbound-guard.js';
import { findLtiPlatform, findLtiPlatformsByIssuer } from '../store/lti-registrations-repository.js';
import { findLoginState, insertLoginState, takeLoginState } from '../store/lti-replay-repository.js';
import type { Database, LtiPlatformRow } from '../store/schema.js';
import { browserSecretMatches, newBrowserSecret, storageKeyOf, storageTargetOf } from './lti-browser-binding.js';
import { LtiLaunchRefusal } from './lti-launch-refusal.js';
import { isInstructorRole, type LaunchOutcome, type LaunchPerson, type LtiLaunchService } from './lti-launch-service.js';
import { TOOL_KEY_ALGORITHM, type LtiToolKeys } from './lti-tool-keys.js';

const CLAIM = 'https://purl.imsglobal.org/spec/lti/claim/';
const DEEP_LINKING_CLAIM = 'https://purl.imsglobal.org/spec/lti-dl/claim/';
const RESOURCE_LINK_REQUEST = 'LtiResourceLinkRequest';
const DEEP_LINKING_REQUEST = 'LtiDeepLinkingRequest';
const DEEP_LINKING_CONTEXT_AUDIENCE = 'merino:lti-deep-linking';
/** How long a deep-linking response is valid for the platform. */
const RESPONSE_LIFETIME_SECONDS = 300;

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

export type AdvantageLaunchOutcome = (LaunchOutcome & { kind: 'launch' }) | DeepLinkingStart | PlatformStorageCheck;

export interface DeepLinkingAnswer {
  returnUrl: string;
  jwt: string;
  /** The platform's origins allowed to frame the page that posts the answer back. */
  frameOrigins: string[];
}

export interface LtiAdvantageOptions {
  db: Kysely<Database>;
  launches: LtiLaunchService;
  toolKeys: LtiToolKeys;
  outbound: OutboundGuard;
  tokenClockSkewSeconds: number;
  loginStateSeconds: number;
  jwksTimeoutMilliseconds: number;
  jwksCacheSeconds: number;
  jwksRefetchCooldownMilliseconds: number;
  sessionTtlHours: number;
}

function stringClaim(payload: JWTPayload, name: string): string | undefined {
  const value = payload[name];
  return typeof value === 'string' ? value : undefined;
}

function objectClaim(payload: JWTPayload, name: string): Record<string, unknown> {
  const value = payload[name];
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

function audiences(payload: JWTPayload): string[] {
  if (typeof payload.aud === 'string') return [payload.aud];
  return Array.isArray(payload.aud) ? payload.aud : [];
}

/** Plainer words for the token faults a person can act on; the reason's own words for the rest. */
function tokenRefusalDetail(error: unknown): string | undefined {
  const { code, claim } = error as { code?: unknown; claim?: unknown };
  if (code === 'ERR_JWT_EXPIRED') return 'The launch token from your course has expired. Open the activity again from your course.';
  if (code === 'ERR_JWT_CLAIM_VALIDATION_FAILED' && claim === 'iat')
    return "The launch token from your course is dated in the future: the course platform's clock is probably wrong. Ask your administrator to check it.";
  if (code === 'ERR_JWKS_NO_MATCHING_KEY')
    return "The launch token was signed with a key the platform does not publish. Ask your administrator to check the platform's keys.";
  return undefined;
}

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
  private readonly keySets = new Map<string, JWTVerifyGetKey>();

  constructor(private readonly options: LtiAdvantageOptions) {}

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

  private keySetFor(platform: LtiPlatformRow): JWTVerifyGetKey | Promise<CryptoKey> {
    if (platform.public_key !== null) return importSPKI(platform.public_key, TOOL_KEY_ALGORITHM);
    const cacheKey = `${platform.id}\n${platform.jwks_url}`;
    let keySet = this.keySets.get(cacheKey);
    if (!keySet) {
      const fetchJwks = this.options.outbound.fetchFor('jwks_url');
      keySet = createRemoteJWKSet(new URL(platform.jwks_url!), {
        timeoutDuration: this.options.jwksTimeoutMilliseconds,
        cacheMaxAge: this.options.jwksCacheSeconds * 1000,
        cooldownDuration: this.options.jwksRefetchCooldownMilliseconds,
        [customFetch]: (url, init) => fetchJwks(url, init),
      });
      this.keySets.set(cacheKey, keySet);
    }
    return keySet;
  }

  private async verifiedToken(idToken: string, platform: LtiPlatformRow): Promise<JWTPayload> {
    const keys = await this.keySetFor(platform);
    const verifyOptions = {
      issuer: platform.issuer,
      audience: platform.client_id,
      algorithms: [TOOL_KEY_ALGORITHM],
      clockTolerance: this.options.tokenClockSkewSeconds,
      // jose refuses an `iat` in the future (past the skew) only when a maximum age is given: a
      // platform's token is issued after the login it answers, so none older than a login state is genuine.
      maxTokenAge: this.options.loginStateSeconds,
      requiredClaims: ['exp', 'iat', 'nonce'],
    };
    try {
      const { payload } =
        typeof keys === 'function' ? await jwtVerify(idToken, keys, verifyOptions) : await jwtVerify(idToken, keys, verifyOptions);
      return payload;
    } catch (error) {
      throw new LtiLaunchRefusal('invalid_token', tokenRefusalDetail(error));
    }
  }

  /** Finds the registration the token is for, by its issuer and audience, before anything is trusted. */
  private async platformOf(idToken: string, expectedPlatformId: number): Promise<LtiPlatformRow> {
    let unverified: JWTPayload;
    try {
      unverified = decodeJwt(idToken);
    } catch {
      throw new LtiLaunchRefusal('invalid_token');
    }
    const platform = await findLtiPlatform(this.db, expectedPlatformId);
    if (!platform || unverified.iss !== platform.issuer) throw new LtiLaunchRefusal('unknown_platform');
    const audience = audiences(unverified);
    if (!audience.includes(platform.client_id))
      throw new LtiLaunchRefusal('invalid_token', 'The launch token is meant for another tool (aud).');
    const authorizedParty = stringClaim(unverified, 'azp');
    if ((audience.length > 1 || authorizedParty !== undefined) && authorizedParty !== platform.client_id)
      throw new LtiLaunchRefusal('invalid_token', 'The launch token is meant for another tool (azp).');
    return platform;
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
    const platform = await this.platformOf(input.idToken, login.platformId);
    const payload = await this.verifiedToken(input.idToken, platform);
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
    if (messageType === DEEP_LINKING_REQUEST) return this.startDeepLinking(payload, platform, deploymentId, proven);
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

  private async startDeepLinking(
    payload: JWTPayload,
    platform: LtiPlatformRow,
    deploymentId: string,
    proven: LaunchPerson,
  ): Promise<DeepLinkingStart> {
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
  async answerDeepLinking(input: {
    context: string;
    userId: number;
    assistantId: number;
    title: string;
    launchUrl: string;
  }): Promise<DeepLinkingAnswer> {
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
    const platform = await findLtiPlatform(this.db, Number(context.platform_id));
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
