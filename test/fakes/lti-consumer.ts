/**
 * An LTI 1.1 tool consumer (what Moodle's "External tool" is) for tests: it builds and signs a
 * basic-lti-launch-request the way RFC 5849 §3.4 says, with its own code (node:crypto only), so
 * the tests check Merino's verifier against an independent signer rather than against itself.
 */
import { createHmac, randomBytes } from 'node:crypto';

export interface ConsumerCredentials {
  key: string;
  secret: string;
}

export interface LaunchOptions {
  /** The URL signed: the launch URL, with a query string when the test wants one. */
  url: string;
  parameters: Record<string, string>;
  /** Seconds since the epoch; now by default. */
  timestamp?: number;
  nonce?: string;
}

/** RFC 3986 unreserved characters stay, everything else is %XX (RFC 5849 §3.6). */
export function percentEncode(value: string): string {
  return encodeURIComponent(value).replace(/[!'()*]/g, (character) => `%${character.charCodeAt(0).toString(16).toUpperCase()}`);
}

/** RFC 5849 §3.4.1: method, base URL and the sorted, encoded parameters of the query and the body. */
export function rfcBaseString(method: string, url: string, bodyPairs: ReadonlyArray<readonly [string, string]>): string {
  const parsed = new URL(url);
  const pairs = [...parsed.searchParams.entries(), ...bodyPairs]
    .filter(([name]) => name !== 'oauth_signature')
    .map(([name, value]) => [percentEncode(name), percentEncode(value)] as const)
    .sort(([nameA, valueA], [nameB, valueB]) =>
      nameA === nameB ? (valueA < valueB ? -1 : valueA > valueB ? 1 : 0) : nameA < nameB ? -1 : 1,
    );
  const normalized = pairs.map(([name, value]) => `${name}=${value}`).join('&');
  return [method.toUpperCase(), percentEncode(`${parsed.protocol}//${parsed.host}${parsed.pathname}`), percentEncode(normalized)].join('&');
}

/** The form fields of a signed launch, oauth_* included. */
export function signedLaunch(credentials: ConsumerCredentials, options: LaunchOptions): Record<string, string> {
  const fields: Record<string, string> = {
    lti_message_type: 'basic-lti-launch-request',
    lti_version: 'LTI-1p0',
    ...options.parameters,
    oauth_consumer_key: credentials.key,
    oauth_signature_method: 'HMAC-SHA1',
    oauth_timestamp: String(options.timestamp ?? Math.floor(Date.now() / 1000)),
    oauth_nonce: options.nonce ?? randomBytes(16).toString('hex'),
    oauth_version: '1.0',
    oauth_callback: 'about:blank',
  };
  const base = rfcBaseString('POST', options.url, Object.entries(fields));
  fields.oauth_signature = createHmac('sha1', `${percentEncode(credentials.secret)}&`)
    .update(base)
    .digest('base64');
  return fields;
}

export function formBody(fields: Record<string, string>): string {
  return new URLSearchParams(fields).toString();
}

/** Posts a launch form as a browser would (no redirects followed), answering status, location, cookie and body. */
export async function postLaunch(
  url: string,
  fields: Record<string, string>,
  headers: Record<string, string> = {},
): Promise<{ status: number; location: string | null; cookie: string | null; text: string; headers: Headers }> {
  const response = await fetch(url, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: formBody(fields),
  });
  return {
    status: response.status,
    location: response.headers.get('location'),
    cookie: response.headers.get('set-cookie'),
    text: await response.text(),
    headers: response.headers,
  };
}
