/**
 * Proves over real HTTP that the request line of the server log shows a query parameter's name
 * only when it looks like a name: at most 32 characters, starting with a letter or `_`, made of
 * letters, digits, `_`, `.` and `-`, and not starting like a Merino token (`mrs_`, `mrk_`).
 * Anything else (a 33-character name, a whole token sent as a bare name, a name of odd
 * characters) is logged as `…`, and values are always `…`, so a client that puts a credential in
 * a query string never gets it into a log line.
 *
 * Why this file exists: dropping the length cap on loggable names in src/http/logger.ts failed no
 * test, though a long name is exactly what a token sent as `?<token>` looks like.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request, startTestServer, type TestServer } from './support/test-server.js';
import { possiblyUnset } from './support/possibly-unset.js';

const LONGEST_LOGGABLE = `p${'a'.repeat(31)}`;
const ONE_TOO_LONG = `p${'a'.repeat(32)}`;
/** Looks like a bearer token someone pasted as a parameter name, without any known prefix. */
const LONG_OPAQUE_NAME = `tok${'Zx9'.repeat(20)}`;

interface RequestLine {
  msg?: string;
  reqId?: string;
  req?: { url?: string };
}

describe('query parameter names in the request log', () => {
  let server: TestServer;
  let counter = 0;

  /** Sends GET /healthz?<query> and returns the URL its "incoming request" line shows. */
  async function loggedUrl(query: string): Promise<string> {
    counter += 1;
    const requestId = `query-name-${counter}`;
    const response = await request(server, 'GET', `/healthz?${query}`, { headers: { 'x-request-id': requestId } });
    expect(response.status).toBe(200);
    const line = server.logLines
      .map((text) => JSON.parse(text) as RequestLine)
      .find((record) => record.reqId === requestId && record.msg === 'incoming request');
    expect(line, `the incoming request line of ${requestId}`).toBeDefined();
    return line!.req!.url!;
  }

  beforeAll(async () => {
    server = await startTestServer('sqlite');
  });

  afterAll(async () => {
    await possiblyUnset(server)?.close();
  });

  it.each([
    ['a short name', 'limit=5', '/healthz?limit=…'],
    ['a name of exactly 32 characters', `${LONGEST_LOGGABLE}=1`, `/healthz?${LONGEST_LOGGABLE}=…`],
    ['a name with digits, dots, dashes and underscores', '_page.size-2=10', '/healthz?_page.size-2=…'],
    ['two names', 'offset=0&search=cells', '/healthz?offset=…&search=…'],
  ])('shows %s with its value masked', async (_description, query, expected) => {
    expect(await loggedUrl(query)).toBe(expected);
  });

  it.each([
    ['a name of 33 characters', `${ONE_TOO_LONG}=1`],
    ['a 63-character name without a value', LONG_OPAQUE_NAME],
    ['a session token sent as a bare name', 'mrs_querytokenname0123456789abcdef'],
    ['a short name that starts like a session token', 'mrs_x=1'],
    ['a short name that starts like an API key', 'mrk_x'],
    ['a name that starts with a digit', '9lives=1'],
    ['a name with a percent-encoded character', 'na%20me=1'],
    ['a name with a colon', 'a:b=1'],
  ])('hides %s behind "…"', async (_description, query) => {
    const name = query.split('=')[0]!;
    const url = await loggedUrl(query);
    expect(url).toBe('/healthz?…=…');
    expect(server.logLines.filter((line) => line.includes(name))).toEqual([]);
  });

  it('hides only the names that are not loggable, keeping the others and their order', async () => {
    expect(await loggedUrl(`limit=5&${ONE_TOO_LONG}=x&mrk_secretkeyname&offset=2`)).toBe('/healthz?limit=…&…=…&…=…&offset=…');
  });

  it('logs a query of empty pairs as nothing after the question mark', async () => {
    expect(await loggedUrl('&&')).toBe('/healthz?');
  });
});
