/**
 * The platform's LTI 1.3 id_token: which registration it is for (issuer, audience and authorized
 * party, read before anything is trusted), its signature checked with `jose` against the platform's
 * public key or JWKS (fetched through the outbound guard, cached, fetched again when a token names
 * an unknown key), and its claims read as plain values.
 */
import {
  createRemoteJWKSet,
  customFetch,
  decodeJwt,
  importSPKI,
  jwtVerify,
  type CryptoKey,
  type JWTPayload,
  type JWTVerifyGetKey,
} from 'jose';
import type { Kysely } from 'kysely';
import type { OutboundGuard } from '../outbound/outbound-guard.js';
import { findLtiPlatform } from '../store/lti-registrations-repository.js';
import type { Database, LtiPlatformRow } from '../store/schema.js';
import { LtiLaunchRefusal } from './lti-launch-refusal.js';
import { TOOL_KEY_ALGORITHM } from './lti-tool-keys.js';

/** The prefix of LTI 1.3's own claims. */
export const CLAIM = 'https://purl.imsglobal.org/spec/lti/claim/';

export interface LtiIdTokenOptions {
  db: Kysely<Database>;
  outbound: OutboundGuard;
  tokenClockSkewSeconds: number;
  loginStateSeconds: number;
  jwksTimeoutMilliseconds: number;
  jwksCacheSeconds: number;
  jwksRefetchCooldownMilliseconds: number;
}

export function stringClaim(payload: JWTPayload, name: string): string | undefined {
  const value = payload[name];
  return typeof value === 'string' ? value : undefined;
}

export function objectClaim(payload: JWTPayload, name: string): Record<string, unknown> {
  const value = payload[name];
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

export function text(value: unknown): string | undefined {
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

export class LtiIdTokenVerifier {
  private readonly keySets = new Map<string, JWTVerifyGetKey>();

  constructor(private readonly options: LtiIdTokenOptions) {}

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

  async verifiedToken(idToken: string, platform: LtiPlatformRow): Promise<JWTPayload> {
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
  async platformOf(idToken: string, expectedPlatformId: number): Promise<LtiPlatformRow> {
    let unverified: JWTPayload;
    try {
      unverified = decodeJwt(idToken);
    } catch {
      throw new LtiLaunchRefusal('invalid_token');
    }
    const platform = await findLtiPlatform(this.options.db, expectedPlatformId);
    if (!platform || unverified.iss !== platform.issuer) throw new LtiLaunchRefusal('unknown_platform');
    const audience = audiences(unverified);
    if (!audience.includes(platform.client_id))
      throw new LtiLaunchRefusal('invalid_token', 'The launch token is meant for another tool (aud).');
    const authorizedParty = stringClaim(unverified, 'azp');
    if ((audience.length > 1 || authorizedParty !== undefined) && authorizedParty !== platform.client_id)
      throw new LtiLaunchRefusal('invalid_token', 'The launch token is meant for another tool (azp).');
    return platform;
  }
}
