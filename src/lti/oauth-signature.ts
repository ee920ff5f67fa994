/**
 * OAuth 1.0a HMAC-SHA1 signatures of LTI 1.1 launches (RFC 5849 §3.4), computed with the
 * `oauth-1.0a` library. What we hand it is decided here, because the library's own URL handling
 * does not follow the RFC on three points: it keeps only one of two parameters with the same name
 * in the query and the body, it does not decode `+` in a query, and it does not normalise the
 * base URL. So the parameters of the query and of the form body are collected here as one list
 * (every occurrence kept, `oauth_signature` left out), and the base URL is built from the scheme,
 * host and path the consumer addressed (behind a proxy, as TRUST_PROXY lets the proxy say),
 * lower-cased, without a default port and without the query.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import OAuth from 'oauth-1.0a';

export type ParameterPairs = ReadonlyArray<readonly [string, string]>;

export interface SignedRequest {
  method: string;
  /** The URL the consumer signed, as it addressed it: scheme, host, port, path and query. */
  url: string;
  /** The form body's parameters, every occurrence in order (oauth_* included). */
  bodyParameters: ParameterPairs;
}

/** The URL without its query or fragment, as RFC 5849 §3.4.1.2 wants it: scheme and host lower-case, no default port. */
export function baseStringUrl(url: string): string {
  const parsed = new URL(url);
  return `${parsed.protocol}//${parsed.host}${parsed.pathname}`;
}

/** Every parameter of the query and the body, with repeats, minus the signature itself. */
function signedParameters(request: SignedRequest): Array<readonly [string, string]> {
  const query = [...new URL(request.url).searchParams.entries()];
  return [...query, ...request.bodyParameters].filter(([name]) => name !== 'oauth_signature');
}

/**
 * The parameters grouped by name, repeats as arrays (how the library serialises `a3=a&a3=2 q`);
 * a prototype-less object, so a parameter named `__proto__` is an ordinary entry.
 */
function groupedParameters(pairs: ReadonlyArray<readonly [string, string]>): Record<string, string | string[]> {
  const grouped: Record<string, string | string[]> = Object.create(null) as Record<string, string | string[]>;
  for (const [name, value] of pairs) {
    const existing = grouped[name];
    if (existing === undefined) grouped[name] = value;
    else grouped[name] = Array.isArray(existing) ? [...existing, value] : [existing, value];
  }
  return grouped;
}

function hmacSha1(baseString: string, key: string): string {
  return createHmac('sha1', key).update(baseString).digest('base64');
}

function signer(consumerKey: string, consumerSecret: string): OAuth {
  return new OAuth({ consumer: { key: consumerKey, secret: consumerSecret }, signature_method: 'HMAC-SHA1', hash_function: hmacSha1 });
}

function libraryRequest(request: SignedRequest): { oauth: OAuth.Data; request: OAuth.RequestOptions } {
  // The library merges its data into the oauth object it is given, so both start empty and prototype-less.
  const oauthData = Object.create(null) as OAuth.Data;
  return {
    oauth: oauthData,
    request: { method: request.method.toUpperCase(), url: baseStringUrl(request.url), data: groupedParameters(signedParameters(request)) },
  };
}

/** The signature base string (RFC 5849 §3.4.1). */
export function signatureBaseString(request: SignedRequest): string {
  const { oauth, request: options } = libraryRequest(request);
  return signer('', '').getBaseString(options, oauth);
}

/** The base64 HMAC-SHA1 signature of the request with the consumer's secret (and a token secret, which LTI never uses). */
export function hmacSha1Signature(request: SignedRequest, consumerSecret: string, tokenSecret = ''): string {
  const { oauth, request: options } = libraryRequest(request);
  return signer('', consumerSecret).getSignature(options, tokenSecret, oauth);
}

/** Whether `claimed` is the request's signature, compared in constant time. */
export function signatureMatches(request: SignedRequest, consumerSecret: string, claimed: string): boolean {
  const expected = Buffer.from(hmacSha1Signature(request, consumerSecret));
  const given = Buffer.from(claimed);
  return expected.length === given.length && timingSafeEqual(expected, given);
}
