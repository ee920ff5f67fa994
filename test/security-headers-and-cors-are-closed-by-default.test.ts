/**
 * Proves the browser-facing protections: every answer (JSON, error, stream, docs) carries the
 * CSP with the configured frame-ancestors and the other security headers; CORS answers no origin
 * by default and exactly the configured ones otherwise; and bad values stop the server at start.
 */
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSettings, SettingsError } from '../src/config/settings.js';
import { loginAsAdmin, request, startTestServer, type TestServer } from './support/test-server.js';
import { possiblyUnset } from './support/possibly-unset.js';

const LMS_ORIGIN = 'https://lms.example.org';
const APP_ORIGIN = 'https://app.example.org';

function preflight(server: TestServer, origin: string): Promise<Response> {
  return fetch(`${server.baseUrl}/api/assistants`, {
    method: 'OPTIONS',
    headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization,content-type' },
  });
}

describe('with the default settings', () => {
  let server: TestServer;
  let token: string;

  beforeAll(async () => {
    server = await startTestServer('sqlite');
    token = await loginAsAdmin(server);
  });

  afterAll(async () => {
    await possiblyUnset(server)?.close();
  });

  it('sends the CSP, nosniff and no X-Frame-Options on JSON, error and docs answers', async () => {
    for (const path of ['/healthz', '/api/me', '/no-such-route', '/docs/']) {
      const response = await fetch(`${server.baseUrl}${path}`, { headers: { authorization: `Bearer ${token}` } });
      const policy = response.headers.get('content-security-policy') ?? '';
      expect(policy, path).toContain("default-src 'self'");
      expect(policy, path).toContain("script-src 'self'");
      expect(policy, path).toContain("object-src 'none'");
      expect(policy, path).toContain("frame-ancestors 'self'");
      expect(response.headers.get('x-content-type-options'), path).toBe('nosniff');
      expect(response.headers.get('x-frame-options'), path).toBeNull();
      expect(response.headers.get('referrer-policy'), path).toBe('no-referrer');
    }
  });

  it('sends the security headers on a streamed chat answer too', async () => {
    const created = await request(server, 'POST', '/api/assistants', {
      token,
      body: {
        name: 'headers',
        metadata: { connector: 'bypass', llm: 'simple-bypass', prompt_processor: 'simple_augment', rag_processor: 'no_rag' },
      },
    });
    expect(created.status, created.text).toBe(201);
    const client = new OpenAI({ apiKey: token, baseURL: `${server.baseUrl}/v1` });
    const { response } = await client.chat.completions
      .create({ model: `lamb_assistant.${created.body.id}`, stream: true, messages: [{ role: 'user', content: 'hi' }] })
      .withResponse();
    expect(response.headers.get('content-security-policy')).toContain("frame-ancestors 'self'");
    expect(response.headers.get('content-type')).toContain('text/event-stream');
  });

  it('answers a cross-origin preflight without any allow-origin', async () => {
    const response = await preflight(server, APP_ORIGIN);
    expect(response.headers.get('access-control-allow-origin')).toBeNull();
    const simple = await fetch(`${server.baseUrl}/healthz`, { headers: { origin: APP_ORIGIN } });
    expect(simple.headers.get('access-control-allow-origin')).toBeNull();
  });
});

describe('with FRAME_ANCESTORS and CORS_ORIGINS set', () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer('sqlite', { environment: { FRAME_ANCESTORS: `'self',${LMS_ORIGIN}`, CORS_ORIGINS: APP_ORIGIN } });
  });

  afterAll(async () => {
    await possiblyUnset(server)?.close();
  });

  it('lets the named LMS frame Merino', async () => {
    const response = await fetch(`${server.baseUrl}/healthz`);
    expect(response.headers.get('content-security-policy')).toContain(`frame-ancestors 'self' ${LMS_ORIGIN}`);
  });

  it('allows exactly the configured origin, with the headers a browser client needs', async () => {
    const allowed = await preflight(server, APP_ORIGIN);
    expect(allowed.status).toBe(204);
    expect(allowed.headers.get('access-control-allow-origin')).toBe(APP_ORIGIN);
    expect(allowed.headers.get('access-control-allow-methods')).toContain('POST');
    const other = await preflight(server, 'https://evil.example.org');
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
    const simple = await fetch(`${server.baseUrl}/healthz`, { headers: { origin: APP_ORIGIN } });
    expect(simple.headers.get('access-control-allow-origin')).toBe(APP_ORIGIN);
    expect(simple.headers.get('access-control-expose-headers')).toContain('x-request-id');
  });
});

describe('the settings', () => {
  it('default to framing by Merino itself and no CORS origin', () => {
    const settings = loadSettings({});
    expect(settings.frameAncestors).toEqual(["'self'"]);
    expect(settings.corsOrigins).toEqual([]);
  });

  it('accept wildcard hosts and several origins', () => {
    expect(loadSettings({ FRAME_ANCESTORS: "https://*.moodle.example.org, 'self'" }).frameAncestors).toEqual([
      'https://*.moodle.example.org',
      "'self'",
    ]);
    expect(loadSettings({ CORS_ORIGINS: 'https://a.example.org,http://localhost:5173' }).corsOrigins).toEqual([
      'https://a.example.org',
      'http://localhost:5173',
    ]);
  });

  it.each([
    ['CORS_ORIGINS', 'https://app.example.org/'],
    ['CORS_ORIGINS', '*'],
    ['CORS_ORIGINS', 'javascript:alert(1)'],
    ['FRAME_ANCESTORS', '*'],
    ['FRAME_ANCESTORS', "https://lms.example.org; script-src 'unsafe-inline'"],
    ['FRAME_ANCESTORS', "'none',https://lms.example.org"],
  ])('refuse %s=%s naming the variable', (variable, value) => {
    expect(() => loadSettings({ [variable]: value })).toThrow(SettingsError);
    expect(() => loadSettings({ [variable]: value })).toThrow(variable);
  });
});
