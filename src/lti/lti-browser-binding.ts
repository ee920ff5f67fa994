/**
 * What ties an LTI 1.3 login to the browser that started it (OIDC's state binding). The login
 * gives that browser a random secret (in a cookie, or in the platform's storage through the LTI
 * postMessage API) and keeps only the secret's SHA-256 with the state in the store; the launch
 * must present the secret. A launch posted by any other browser, with a state and token an
 * attacker obtained from their own login, has no secret and is refused (login CSRF).
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** The name of a platform's storage frame: `_parent` or a frame name, as `lti_storage_target` gives it. */
const STORAGE_TARGET = /^[A-Za-z0-9_.-]{1,64}$/;

export interface BrowserSecret {
  /** Given to the browser only; never stored. */
  secret: string;
  /** Kept with the state. */
  hash: string;
}

function hashOf(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

export function newBrowserSecret(): BrowserSecret {
  const secret = randomBytes(32).toString('base64url');
  return { secret, hash: hashOf(secret) };
}

/** Whether the presented secret is the one whose hash the state keeps (compared in constant time). */
export function browserSecretMatches(presented: string, expectedHash: string | null): boolean {
  if (expectedHash === null) return false;
  const expected = Buffer.from(expectedHash, 'hex');
  const actual = Buffer.from(hashOf(presented), 'hex');
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}

/** The storage frame the platform named, or undefined when it named none or something that is not a frame name. */
export function storageTargetOf(value: string | undefined): string | undefined {
  return value !== undefined && STORAGE_TARGET.test(value) ? value : undefined;
}

/** The platform-storage key the login's secret is kept under (the spec's convention: `state_` and the state). */
export function storageKeyOf(state: string): string {
  return `state_${state}`;
}
